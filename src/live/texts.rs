//! The live mode's own texts, in English and Chinese like every text of the page
//! ([`crate::i18n`]). They sit apart from the engine playground's texts because they describe
//! only this mode: which views a real API server can feed, and why the others cannot be.

use crate::i18n::texts;

texts! {
    L;
    Live => "live", "实时";
    LiveHint => "Reading and watching a real API server at {} (same origin, e.g. through kubectl proxy)", "正在读取并 watch 一个真实的 API server：{}（同源，例如经由 kubectl proxy）";
    ThisOrigin => "this page's origin", "本页所在的源";
    Refused => "?live={} is not a path on this origin: live mode only reads the API server of the page's own origin.", "?live={} 不是本源上的路径：实时模式只读取本页所在源的 API server。";
    LatestRv => "Latest resourceVersion seen", "看到的最新 resourceVersion";
    Connected => "connected", "已连接";
    Connecting => "connecting…", "正在连接…";
    ServerError => "API server: {}", "API server：{}";
    NoClock => "The virtual clock (pause, step, speed, seed, export) belongs to the in-tab engine; a real cluster runs on real time.", "虚拟时钟（暂停、单步、速度、种子、导出）属于标签页内的引擎；真实集群按真实时间运行。";
    PodsCount => "{} pods", "{} 个 Pod";
    NodesTitle => "Nodes", "节点";
    NoNodes => "No nodes listed yet.", "还没有列出任何节点。";
    // Not available in live mode
    NotAvailable => "Not available in live mode", "实时模式下不可用";
    NoEtcd => "etcd members, leader and quorum are inside the control plane: the Kubernetes API does not expose them.", "etcd 成员、领导者和法定人数位于控制平面内部：Kubernetes API 不暴露它们。";
    NoLedger => "The ledger (every revision with its writer and time) is the store's own history. The Kubernetes API serves only the current state and the changes a watch delivers, so this view cannot be filled from a real API server.", "账本（每一页及其写入者和时间）是存储自身的历史。Kubernetes API 只提供当前状态和 watch 送来的变化，因此无法从真实的 API server 填充这个视图。";
    NoFanOut => "The server's other watch streams and the fan-out of each revision are internal to the API server. Only this page's own streams are shown.", "API server 上其他客户端的 watch 流和每一页的扇出属于服务器内部状态。这里只显示本页自己的流。";
    NoInformers => "The controllers' informer caches live inside the controllers (kube-controller-manager, the scheduler, the kubelets); the API does not expose how far behind they are.", "控制器的 Informer 缓存位于各控制器内部（kube-controller-manager、调度器、kubelet）；API 不暴露它们落后多少。";
    NoTimeline => "The timeline draws the ledger's writes over virtual time; a real API server exposes neither.", "时间线按虚拟时间绘制账本中的写入；真实的 API server 不暴露这两者。";
    NoRules => "kube-proxy's rules live in each node's kube-proxy (iptables or IPVS), not in the API server: a client cannot read them. kubectl get endpointslices shows what they are built from.", "kube-proxy 的规则存在于各节点的 kube-proxy（iptables 或 IPVS）中，而不在 API server 里：客户端读不到。kubectl get endpointslices 显示它们所依据的数据。";
    NoActions => "The action buttons (kill a node, stop etcd members, compact, conflicting write) drive the in-tab engine. Against a real cluster, use the console.", "这些操作按钮（让节点宕机、停止 etcd 成员、压缩、冲突写入）驱动的是标签页内的引擎。面对真实集群，请使用终端。";
    NoScenarios => "The guided scenarios drive the in-tab engine (its clock, its nodes, its etcd).", "引导场景驱动的是标签页内的引擎（它的时钟、节点和 etcd）。";
    NoEditor => "The file editor belongs to the in-tab engine; the console still has orders-deploy.yaml for kubectl apply -f.", "文件编辑器属于标签页内的引擎；终端里仍可用 orders-deploy.yaml 执行 kubectl apply -f。";
    InTabLink => "Open the in-tab engine", "打开标签页内的引擎";
    // This page's streams
    PageStreams => "This page's list + watch streams", "本页的 list + watch 流";
    ColResource => "Resource", "资源";
    ColRequest => "Request", "请求";
    ColState => "State", "状态";
    ColLastRv => "Last RV", "最后页码";
    ColCached => "Cached", "缓存对象";
    ColEvents => "Events", "事件";
    ColRewatches => "Re-watches", "重新 watch";
    ColRelists => "Relists", "重新 list";
    Col410 => "410s", "410 次数";
    StateListing => "listing", "list 中";
    StateWaiting => "waiting to watch", "等待 watch";
    StateWatching => "watching", "watch 中";
    StateBackoff => "backing off: {}", "退避中：{}";
    Raw => "Raw", "原始";
    RawTitle => "The {} watch stream exactly as the HTTP body", "{} 的 watch 流：HTTP 响应体原文";
    RawEmpty => "Nothing received on this stream yet: it shows the lines that arrive after the list.", "这条流还没有收到任何内容：这里显示 list 之后到达的行。";
    Close => "Close", "关闭";
    // Events
    NoEvents => "No events.", "没有事件。";
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    #[test]
    fn every_text_has_both_languages_translated_with_matching_placeholders() {
        for t in L::ALL {
            let (en, zh) = t.pair();
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{t:?}");
            assert_ne!(en, zh, "{t:?} is not translated");
            assert_eq!(en.matches("{}").count(), zh.matches("{}").count(), "{t:?}");
        }
    }

    #[test]
    fn fill_replaces_placeholders() {
        assert_eq!(L::PodsCount.fill(Lang::En, &["3"]), "3 pods");
        assert_eq!(L::PodsCount.fill(Lang::Zh, &["3"]), "3 个 Pod");
    }
}
