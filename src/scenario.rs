//! The guided scenarios: the seed texts' stories as steps a learner advances with Next, and a
//! custom resource reconciled by the engine's example operator (the second text's §6.3).
//! A step narrates (zh + en) and then does things the learner could do by hand — a console
//! command verbatim from the texts, a cluster action, a clock setting, a view to look at.

use crate::clock::Speed;
use crate::seeds::SEED_COMMANDS;

/// The custom-resource scenario's console lines (the files are the console's, see `seeds`).
pub const APPLY_WEBSITE_CRD: &str = "kubectl apply -f website-crd.yaml";
pub const WEBSITE_RESOURCES: &str = "kubectl api-resources --api-group=examples.watchlab.dev";
pub const APPLY_WEBSITE: &str = "kubectl apply -f website.yaml";
pub const GET_WEBSITES: &str = "kubectl get websites";
pub const GET_WEBSITE_DEPLOYMENT: &str = "kubectl get deployment blog";
pub const SCALE_WEBSITE: &str =
    "kubectl patch website blog --type=merge -p '{\"spec\":{\"replicas\":3}}'";
pub const DELETE_WEBSITE: &str = "kubectl delete website blog";
pub const GET_WEBSITE_PODS: &str = "kubectl get deployments,pods -l website=blog";

/// The Service scenario's console lines.
pub const EXPOSE_ORDERS: &str =
    "kubectl expose deployment orders-api -n production --port=80 --target-port=8080";
pub const GET_ORDERS_SVC: &str = "kubectl get svc -n production";
pub const GET_ORDERS_SLICES: &str = "kubectl get endpointslices -n production";
pub const SCALE_ORDERS_DOWN: &str =
    "kubectl scale deployment orders-api -n production --replicas=2";
pub const DELETE_ORDERS_PODS: &str = "kubectl delete pods -n production -l app=orders-api";
pub const APPLY_CANARY: &str = "kubectl apply -f orders-canary.yaml";
pub const GET_CANARY: &str = "kubectl get pod orders-canary -n production -o wide";
pub const HEAL_CANARY: &str =
    "kubectl annotate pod orders-canary -n production watchlab.dev/behaviour-";
pub const RUN_CRASHING: &str = "kubectl run orders-crash --image=orders-api:2.4.1 -n production --labels=app=orders-api --annotations=watchlab.dev/behaviour=crash-after=5s";
pub const GET_CRASHING: &str = "kubectl get pod orders-crash -n production -o wide";

/// The Service scenario's waits (virtual ms), from the canary's and the crashing pod's
/// behaviour and probes: ready after the image pull (2–5 s) and the first readiness probe;
/// not ready after three failed readiness probes, 30 s into its run; back after six failed
/// liveness probes, the restart and a readiness probe; the crash loop's first four exits and
/// restarts (1 s, 10 s, 20 s, 40 s after each).
const CANARY_READY_MS: u64 = 15_000;
const CANARY_NOT_READY_MS: u64 = 30_000;
const CANARY_BACK_MS: u64 = 45_000;
const CRASH_LOOP_MS: u64 = 120_000;

/// Which view a step asks the learner to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Cluster,
    Ledger,
    Broadcast,
    Informers,
    Events,
    Timeline,
    /// kube-proxy's rules on each node.
    Rules,
}

impl View {
    /// The view's tab label.
    pub fn label(self) -> crate::i18n::T {
        use crate::i18n::T;
        match self {
            View::Cluster => T::TabCluster,
            View::Ledger => T::TabLedger,
            View::Broadcast => T::TabBroadcast,
            View::Informers => T::TabInformers,
            View::Events => T::TabEvents,
            View::Timeline => T::TabTimeline,
            View::Rules => T::TabRules,
        }
    }
}

impl View {
    pub const ALL: [View; 7] = [
        View::Cluster,
        View::Ledger,
        View::Broadcast,
        View::Informers,
        View::Events,
        View::Timeline,
        View::Rules,
    ];

    /// The id used in the DOM (`tab-ledger`).
    pub fn id(self) -> &'static str {
        match self {
            View::Cluster => "cluster",
            View::Ledger => "ledger",
            View::Broadcast => "broadcast",
            View::Informers => "informers",
            View::Events => "events",
            View::Timeline => "timeline",
            View::Rules => "rules",
        }
    }
}

/// Something a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Runs a console line verbatim.
    Command(&'static str),
    KillNode(&'static str),
    RestoreNode(&'static str),
    /// Kills the first live etcd member that is not the leader (or the leader if it is the last).
    KillEtcdMember,
    /// Restores every etcd member that is down.
    RestoreEtcd,
    ConflictingWrite,
    SetSpeed(Speed),
    Pause(bool),
    /// Advances virtual time by this many milliseconds at once.
    Advance(u64),
    Show(View),
    /// Starts the naive watcher and the resuming informer on the texts' namespace.
    CompareReconnects,
    /// Cuts their connection to the API server.
    CutWatches,
    /// Restores it.
    RestoreWatches,
    /// Compacts the ledger to the current revision.
    Compact,
}

/// One step: what to read, then what happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub en: &'static str,
    pub zh: &'static str,
    pub effects: &'static [Effect],
}

/// A guided story.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// DOM id (`scenario-watch`).
    pub id: &'static str,
    pub title_en: &'static str,
    pub title_zh: &'static str,
    pub steps: &'static [Step],
}

use Effect::*;

/// A write that changes the object (the texts' `team=orders` is a no-op once applied).
pub const RELABEL: &str =
    "kubectl label deployment orders-api -n production team=payments --overwrite";

/// The stories, in the order the texts tell them.
pub const SCENARIOS: [Scenario; 7] = [
    Scenario {
        id: "watch",
        title_en: "A pod watched with -w",
        title_zh: "用 -w 观察一个 Pod",
        steps: &[
            Step {
                en: "Terminal one subscribes to the pods of namespace production. kubectl lists once, then keeps the watch open from that list's resourceVersion.",
                zh: "终端一订阅 production 空间的 Pod 变更流：kubectl 先 list 一次，再从这次 list 的 resourceVersion 开始保持 watch。",
                effects: &[Pause(true), Command(SEED_COMMANDS[0]), Show(View::Broadcast)],
            },
            Step {
                en: "Terminal two creates a debugging pod. The API server writes it to the ledger at the next revision and broadcasts it to every matching stream.",
                zh: "终端二创建一个排查用的临时 Pod。API Server 把它写进账本的下一页，并推送给所有匹配的订阅流。",
                effects: &[Command(SEED_COMMANDS[1]), Show(View::Ledger)],
            },
            Step {
                en: "Let time run: the scheduler binds the pod (Pending), the kubelet reports ContainerCreating, then Running. Three writes, three lines in terminal one.",
                zh: "让时间走起来：调度器绑定节点（Pending），kubelet 汇报 ContainerCreating，再汇报 Running。三次落账，终端一滚出三行。",
                effects: &[SetSpeed(Speed::X10), Pause(false), Show(View::Cluster)],
            },
            Step {
                en: "Each line was one component writing one page of the ledger. The Broadcast view shows who else received each revision and who filtered it out.",
                zh: "每一行都是某个组件往账本上写了一笔。广播视图显示每一页还推送给了谁、谁把它过滤掉了。",
                effects: &[Show(View::Broadcast)],
            },
        ],
    },
    Scenario {
        id: "node-failure",
        title_en: "The node-c failure post-mortem",
        title_zh: "node-c 宕机复盘",
        steps: &[
            Step {
                en: "node-c runs one replica of orders-api. Its machine dies: the kubelet stops posting heartbeats. Nobody is told; the ledger simply stops hearing from it.",
                zh: "node-c 上跑着 orders-api 的一个副本。整机失联：kubelet 停止心跳上报。没有人被通知，账本上只是再也没有它的消息。",
                effects: &[KillNode("node-c"), Show(View::Cluster)],
            },
            Step {
                en: "Speed up to 60×. The node controller marks node-c NotReady, then its pods Terminating; the Deployment's ReplicaSet sees 2 < 3 and creates a new pod, which the scheduler places elsewhere (about two virtual minutes).",
                zh: "加速到 60×。节点控制器把 node-c 标记为 NotReady，再把其上的 Pod 标记为 Terminating；ReplicaSet 发现副本 2 小于期望 3，创建新 Pod，调度器把它放到别的节点（约两分钟虚拟时间）。",
                effects: &[SetSpeed(Speed::X60), Pause(false), Show(View::Timeline)],
            },
            Step {
                en: "The post-mortem, read from the ledger's side: the Events sorted by lastTimestamp.",
                zh: "从账本视角复盘：按 lastTimestamp 排序的事件。",
                effects: &[Command(SEED_COMMANDS[4]), Show(View::Events)],
            },
            Step {
                en: "Bring node-c back. Its kubelet posts Ready again; nothing moves back by itself.",
                zh: "恢复 node-c。它的 kubelet 重新上报 Ready；已经迁走的副本不会自己搬回来。",
                effects: &[RestoreNode("node-c"), Show(View::Cluster)],
            },
        ],
    },
    Scenario {
        id: "conflict",
        title_en: "The conflicting kubectl apply",
        title_zh: "冲突的 kubectl apply",
        steps: &[
            Step {
                en: "Read the page number of orders-api: every write sends the object with the resourceVersion it read.",
                zh: "读一下 orders-api 当前的页码：每次写回都带着自己读到的 resourceVersion。",
                effects: &[Pause(true), Command(SEED_COMMANDS[2])],
            },
            Step {
                en: "Two editors read orders-api at the same revision and both write it back. The first wins; the second is refused with 409 Conflict; it re-reads and re-applies.",
                zh: "两个编辑者在同一页码读取 orders-api 并先后写回。先提交者成功；后提交者被 409 Conflict 拒绝，重读后再次应用。",
                effects: &[ConflictingWrite, Show(View::Ledger)],
            },
            Step {
                en: "kubectl apply does the same read-modify-write with a patch and retries on conflict by itself.",
                zh: "kubectl apply 用补丁做同样的读改写，遇到冲突会自己重试。",
                effects: &[Command(SEED_COMMANDS[7]), Command(SEED_COMMANDS[2])],
            },
        ],
    },
    Scenario {
        id: "etcd-quorum",
        title_en: "etcd loses its majority",
        title_zh: "etcd 失去多数派",
        steps: &[
            Step {
                en: "Three etcd members: a write commits once two of them (the quorum) have it. Kill one member: two remain, writes still commit.",
                zh: "三个 etcd 成员：写入被其中两个（法定人数）确认即提交。停掉一个成员：还剩两个，写入照常提交。",
                effects: &[Pause(true), KillEtcdMember, Command(SEED_COMMANDS[3]), Show(View::Cluster)],
            },
            Step {
                en: "Kill a second member: one of three is no majority. There is no leader, and every write fails; reads are still served.",
                zh: "再停掉一个：三剩一不再是多数派。没有领导者，所有写入失败；读请求仍然可用。",
                effects: &[KillEtcdMember, Advance(5_000), Command(RELABEL), Command(SEED_COMMANDS[2])],
            },
            Step {
                en: "Restore the members: a leader is elected in a new term and writes commit again. This is why production etcd has at least three members.",
                zh: "恢复成员：新任期选出领导者，写入恢复。这就是生产环境 etcd 至少三个成员的原因。",
                effects: &[RestoreEtcd, Advance(5_000), Command(RELABEL)],
            },
        ],
    },
    Scenario {
        id: "lost-events",
        title_en: "Lost and duplicated events (§7)",
        title_zh: "事件丢失与重复（§7）",
        steps: &[
            Step {
                en: "Two clients watch the pods of production: a naive watcher that never keeps its resourceVersion, and an informer that resumes from the last one it saw. Both caches match etcd.",
                zh: "两个客户端监听 production 的 Pod：一个从不保存 resourceVersion 的简单 watcher，一个从最后看到的版本续订的 Informer。两个缓存都与 etcd 一致。",
                effects: &[Pause(true), Command("kubectl run gap-gone --image=nginx -n production"), CompareReconnects, Advance(5_000), Show(View::Broadcast)],
            },
            Step {
                en: "Their connection drops. Meanwhile a pod is deleted and another created: the DELETED and ADDED events happen while nobody of the two is listening.",
                zh: "它们的连接断了。这期间一个 Pod 被删除、另一个被创建：DELETED 和 ADDED 事件发生时，两者都没在听。",
                effects: &[CutWatches, Command("kubectl delete pod gap-gone -n production"), Command("kubectl run gap-new --image=nginx -n production"), Advance(40_000)],
            },
            Step {
                en: "The ledger is compacted, then the connection comes back. The naive watcher asks for no version: every pod arrives again as ADDED (duplicates) and the deleted pod stays in its cache forever (missed). The informer asks for its last version, gets 410 Gone, relists, and misses nothing.",
                zh: "账本被压缩，然后连接恢复。简单 watcher 不带版本号：每个 Pod 都再以 ADDED 到达一次（重复），被删的 Pod 永远留在它的缓存里（遗漏）。Informer 带着最后的版本号重连，收到 410 Gone，重新 list，一个也不漏。",
                effects: &[Compact, RestoreWatches, Advance(5_000)],
            },
        ],
    },
    Scenario {
        id: "operator",
        title_en: "A custom resource and its operator",
        title_zh: "自定义资源与它的 Operator",
        steps: &[
            Step {
                en: "Apply a CustomResourceDefinition: the API server learns a new resource, websites in group examples.watchlab.dev. Discovery lists it at once, as kubectl api-resources shows; the example operator, idle until now, starts watching Websites and Deployments.",
                zh: "应用一个 CustomResourceDefinition：API Server 学会一种新资源——examples.watchlab.dev 组里的 websites。发现文档立刻列出它，kubectl api-resources 可见；一直闲着的示例 Operator 开始 watch Website 和 Deployment。",
                effects: &[Pause(true), Command(APPLY_WEBSITE_CRD), Command(WEBSITE_RESOURCES), Show(View::Ledger)],
            },
            Step {
                en: "Apply a Website named blog (nginx, 2 replicas). It is stored in the ledger like any object and broadcast to every stream watching websites: the operator's and the garbage collector's.",
                zh: "应用一个名为 blog 的 Website（nginx，2 个副本）。它像任何对象一样写进账本，并推送给所有 watch websites 的订阅流：Operator 的和垃圾回收器的。",
                effects: &[Command(APPLY_WEBSITE), Show(View::Broadcast)],
            },
            Step {
                en: "Let time run. The operator's informer delivers the Website; it creates a Deployment blog that it owns (ownerReference, controller: true), then the Deployment and ReplicaSet controllers and the scheduler do the rest. The operator writes the available replicas into the Website's status.",
                zh: "让时间走起来。Operator 的 Informer 收到这个 Website，创建一个归它所有的 Deployment blog（ownerReference，controller: true），之后由 Deployment、ReplicaSet 控制器和调度器接手。Operator 把可用副本数写回 Website 的 status。",
                effects: &[Advance(15_000), Command(GET_WEBSITE_DEPLOYMENT), Command(GET_WEBSITES), Show(View::Informers)],
            },
            Step {
                en: "Edit the Website: 3 replicas. The operator sees the change, reads its cached Deployment and updates it; the Deployment controller scales the ReplicaSet. Had its cache been stale, the write would have come back 409 and been retried after a re-read.",
                zh: "修改 Website：3 个副本。Operator 收到变更，读取缓存中的 Deployment 并更新它；Deployment 控制器扩容 ReplicaSet。如果它的缓存过期，写入会得到 409，重读后重试。",
                effects: &[Command(SCALE_WEBSITE), Advance(15_000), Command(GET_WEBSITE_DEPLOYMENT), Command(GET_WEBSITES), Show(View::Timeline)],
            },
            Step {
                en: "Delete the Website. The operator does nothing: the garbage collector sees that the Deployment's owner is gone and deletes it, then its ReplicaSet and pods, each in turn. The ledger shows who deleted what.",
                zh: "删除 Website。Operator 什么也不做：垃圾回收器发现 Deployment 的属主已不存在，删除它，再依次删除它的 ReplicaSet 和 Pod。账本显示是谁删除了什么。",
                effects: &[Command(DELETE_WEBSITE), Advance(15_000), Command(GET_WEBSITE_PODS), Show(View::Ledger)],
            },
        ],
    },
    Scenario {
        id: "service",
        title_en: "A Service follows its pods",
        title_zh: "Service 跟随它的 Pod",
        steps: &[
            Step {
                en: "Put a Service in front of orders-api: kubectl expose gives it a ClusterIP from 10.96.0.0/12 and the Deployment's selector, app=orders-api. The Service is one more page of the ledger; nothing routes to the pods yet.",
                zh: "给 orders-api 加一个 Service：kubectl expose 从 10.96.0.0/12 分配一个 ClusterIP，并沿用 Deployment 的选择器 app=orders-api。Service 只是账本上的又一页；此时还没有任何流量规则。",
                effects: &[Pause(true), Command(EXPOSE_ORDERS), Command(GET_ORDERS_SVC), Show(View::Ledger)],
            },
            Step {
                en: "The EndpointSlice controller watches Services and Pods. It reads the ledger, computes the difference and writes one EndpointSlice listing the ready pods (label kubernetes.io/service-name=orders-api). That write is broadcast to every kube-proxy, one per node.",
                zh: "EndpointSlice 控制器 watch Service 和 Pod。它读账本、算差异，写下一个列出就绪 Pod 的 EndpointSlice（标签 kubernetes.io/service-name=orders-api）。这次写入被广播给每个节点上的 kube-proxy。",
                effects: &[Advance(5_000), Command(GET_ORDERS_SLICES), Show(View::Broadcast)],
            },
            Step {
                en: "Each kube-proxy turns the slice into rules: ClusterIP:80 → pod IP:8080. The Rules view shows every node's rules, when the node applied them and the lag since the write they were built from.",
                zh: "每个 kube-proxy 把切片变成转发规则：ClusterIP:80 → Pod IP:8080。规则视图显示每个节点的规则、应用时间，以及距它所依据的那次写入的延迟。",
                // kube-proxy rewrites its rules at most once a second (--iptables-min-sync-period).
                effects: &[Advance(1_000), Show(View::Rules)],
            },
            Step {
                en: "Scale down to 2 replicas. A pod is deleted; the controller rewrites the slice without it, and every kube-proxy drops that endpoint from its rules.",
                zh: "缩容到 2 个副本。一个 Pod 被删除；控制器重写切片把它去掉，每个 kube-proxy 随之从规则中删除这个端点。",
                effects: &[Command(SCALE_ORDERS_DOWN), Advance(5_000), Command(GET_ORDERS_SLICES), Show(View::Rules)],
            },
            Step {
                en: "Delete every pod of orders-api. The slice empties at once (a terminating pod is not ready), the ReplicaSet creates replacements, and the endpoints come back as each new pod turns Ready: the rules follow the ledger, one broadcast at a time.",
                zh: "删除 orders-api 的全部 Pod。切片立刻清空（终止中的 Pod 不算就绪），ReplicaSet 创建替代的 Pod，每个新 Pod 就绪后端点重新出现：规则跟着账本走，一次广播一步。",
                effects: &[Command(DELETE_ORDERS_PODS), Advance(1_000), Show(View::Rules)],
            },
            Step {
                en: "The replacements are Ready and back in the rules. Now a pod whose readiness will fail: orders-canary.yaml is a pod labelled app=orders-api (the Service selects by label, not by owner) whose process hangs 30 s after it starts (annotation watchlab.dev/behaviour: unhealthy-after=30s). Its readiness probe asks every 5 s; once it answers, the canary's IP joins the slice and every node's rules.",
                zh: "替代的 Pod 已就绪，重新回到规则里。再来一个就绪探针会失败的 Pod：orders-canary.yaml 是一个带 app=orders-api 标签的 Pod（Service 按标签选择，而不是按属主），它的进程启动 30 秒后会卡住（注解 watchlab.dev/behaviour: unhealthy-after=30s）。它的就绪探针每 5 秒探测一次；一旦应答，canary 的 IP 就进入切片和每个节点的规则。",
                effects: &[Advance(10_000), Command(APPLY_CANARY), Advance(CANARY_READY_MS), Command(GET_CANARY), Command(GET_ORDERS_SLICES), Show(View::Rules)],
            },
            Step {
                en: "The process hangs. After three failed readiness probes the kubelet writes Ready=False in the pod's status (an Unhealthy event each time). The EndpointSlice controller reads that write and marks the canary's endpoint not ready; the slice's new version is broadcast and every kube-proxy drops the canary from its rules. Meanwhile ship the fix: remove the behaviour annotation, which the next start of the container will read.",
                zh: "进程卡住了。就绪探针连续失败三次后，kubelet 在 Pod 的 status 里写下 Ready=False（每次失败记一个 Unhealthy 事件）。EndpointSlice 控制器读到这次写入，把 canary 的端点标为未就绪；切片的新版本被广播，每个 kube-proxy 把 canary 从规则中删掉。同时发布修复：删除 behaviour 注解，容器下次启动时会读到它。",
                effects: &[Advance(CANARY_NOT_READY_MS), Command(GET_CANARY), Command(GET_ORDERS_SLICES), Command(HEAL_CANARY), Show(View::Rules)],
            },
            Step {
                en: "The liveness probe fails too (six times, every 10 s): the kubelet kills the container and starts it again (RESTARTS 1). The new process answers, the kubelet writes Ready=True, the slice lists the endpoint as ready again and every kube-proxy adds it back.",
                zh: "存活探针也失败了（每 10 秒一次，共六次）：kubelet 杀掉容器并重新启动（RESTARTS 1）。新进程应答，kubelet 写下 Ready=True，切片重新把这个端点列为就绪，每个 kube-proxy 把它加回规则。",
                effects: &[Advance(CANARY_BACK_MS), Command(GET_CANARY), Command(GET_ORDERS_SLICES), Show(View::Rules)],
            },
            Step {
                en: "A crash-looping pod: orders-crash exits with code 1 five seconds after each start. Each exit makes it not ready and its endpoint leaves the slice and the rules; each restart brings it back for five seconds. The kubelet waits longer before every restart (CrashLoopBackOff: 10 s, 20 s, 40 s … up to 5 min), so the endpoint flaps ever more slowly. The Timeline shows the slice's writes spreading out.",
                zh: "一个崩溃循环的 Pod：orders-crash 每次启动 5 秒后以退出码 1 退出。每次退出它都变为未就绪，端点离开切片和规则；每次重启又让它回来 5 秒。kubelet 每次重启前等待得更久（CrashLoopBackOff：10 秒、20 秒、40 秒……最多 5 分钟），所以端点的闪烁越来越慢。时间线视图里可以看到切片的写入越来越稀疏。",
                effects: &[Command(RUN_CRASHING), Advance(CRASH_LOOP_MS), Command(GET_CRASHING), Command(GET_ORDERS_SLICES), Show(View::Timeline)],
            },
            Step {
                en: "Let time run and watch the rules follow, node by node.",
                zh: "让时间走起来，看规则在每个节点上跟着变化。",
                effects: &[SetSpeed(Speed::X10), Pause(false), Show(View::Rules)],
            },
        ],
    },
];

/// The scenario with this id.
pub fn find(id: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.id == id)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn scenarios_have_unique_ids_and_bilingual_steps() {
        let ids: HashSet<_> = SCENARIOS.iter().map(|s| s.id).collect();
        assert_eq!(ids.len(), SCENARIOS.len());
        for s in &SCENARIOS {
            assert!(!s.steps.is_empty(), "{}", s.id);
            assert_eq!(find(s.id), Some(s));
            for step in s.steps {
                assert!(!step.en.is_empty() && !step.zh.is_empty());
                assert_ne!(step.en, step.zh);
            }
        }
        assert_eq!(find("nope"), None);
    }

    #[test]
    fn every_seed_command_appears_in_a_scenario_or_is_a_console_example() {
        let used: HashSet<_> = SCENARIOS
            .iter()
            .flat_map(|s| s.steps.iter())
            .flat_map(|st| st.effects.iter())
            .filter_map(|e| match e {
                Command(c) => Some(*c),
                _ => None,
            })
            .collect();
        for c in [
            SEED_COMMANDS[0],
            SEED_COMMANDS[1],
            SEED_COMMANDS[2],
            SEED_COMMANDS[3],
            SEED_COMMANDS[4],
            SEED_COMMANDS[7],
        ] {
            assert!(used.contains(c), "{c}");
        }
    }
}
