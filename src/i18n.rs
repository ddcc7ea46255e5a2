//! Every text the page shows, in English and Chinese (the learners read Chinese; a trainer may
//! present in either). Components never hard-code a sentence: they ask for a [`T`] key in the
//! current [`Lang`]. kubectl's own output is not here: it stays English, as the real kubectl.

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    En,
    #[default]
    Zh,
}

impl Lang {
    /// The BCP 47 code (`<html lang>`, localStorage value).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// Reads a stored code; anything unknown is `None`.
    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "zh-CN" | "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }
}

/// The localStorage key the language choice is remembered under.
pub const STORAGE_KEY: &str = "watchlab.lang";

/// Declares a text-key enum `$name` with its (English, Chinese) pairs, `ALL`, `tr` and `fill`.
/// The playground's texts are [`T`]; the live mode declares its own the same way.
macro_rules! texts {
    ($name:ident; $($key:ident => $en:literal, $zh:literal;)*) => {
        /// A UI text key.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($key,)* }

        impl $name {
            /// Every key (for completeness tests).
            pub const ALL: &'static [$name] = &[$($name::$key,)*];

            /// The (English, Chinese) pair.
            pub fn pair(self) -> (&'static str, &'static str) {
                match self { $($name::$key => ($en, $zh),)* }
            }

            /// The text in `lang`.
            pub fn tr(self, lang: $crate::i18n::Lang) -> &'static str {
                let (en, zh) = self.pair();
                match lang {
                    $crate::i18n::Lang::En => en,
                    $crate::i18n::Lang::Zh => zh,
                }
            }

            /// The text in `lang` with `{}` placeholders filled in order.
            pub fn fill(self, lang: $crate::i18n::Lang, args: &[&str]) -> String {
                $crate::i18n::fill(self.tr(lang), args)
            }
        }
    };
}
pub(crate) use texts;

/// `template` with its `{}` placeholders replaced by `args` in order (missing ones empty).
pub fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut args = args.iter();
    while let Some(at) = rest.find("{}") {
        out.push_str(&rest[..at]);
        out.push_str(args.next().copied().unwrap_or(""));
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

texts! {
    T;
    Tagline => "the ledger and the broadcast, live", "账本与广播站，现场演示";
    Language => "中文", "English";
    LanguageHint => "Switch language", "切换语言";
    Revision => "Revision", "当前页码";
    VirtualTime => "Virtual time", "虚拟时间";
    Pause => "Pause", "暂停";
    Resume => "Run", "运行";
    Step => "Step", "单步";
    StepHint => "Show the next revision (running the timers until something is written); next timer", "显示下一个修订版本（执行定时事件直到有写入）；下一个定时事件";
    Speed => "Speed", "速度";
    Seed => "Seed", "种子";
    Restart => "Restart", "重新开始";
    NoTimer => "nothing scheduled", "没有待执行的定时事件";
    Size => "Size", "规模";
    SizeHint => "nodes × replicas of the demo Deployment (production/orders-api), applied on Restart", "节点数 × 演示 Deployment（production/orders-api）的副本数，点击“重新开始”时生效";
    SizeNodesNotANumber => "Nodes: \"{}\" is not a whole number. The cluster is unchanged.", "节点数：“{}”不是整数。集群未改变。";
    SizeNodesOutOfRange => "Nodes: {} is not between 1 and {} (Kubernetes supports at most 5,000 nodes per cluster). The cluster is unchanged.", "节点数：{} 不在 1 到 {} 之间（Kubernetes 每个集群最多支持 5000 个节点）。集群未改变。";
    SizeReplicasNotANumber => "Replicas: \"{}\" is not a whole number. The cluster is unchanged.", "副本数：“{}”不是整数。集群未改变。";
    SizeOverCapacity => "{} replicas do not fit on {} nodes: they hold at most {} pods ({} per node, the kubelet's maxPods). The cluster is unchanged.", "{} 个副本放不下：{} 个节点最多容纳 {} 个 Pod（每个节点 {} 个，即 kubelet 的 maxPods）。集群未改变。";
    EngineBehind => "busy", "忙碌";
    EngineBehindHint => "The cluster has more to do than one frame allows: virtual time runs slower than the chosen speed until it catches up", "集群要做的事超过一帧的预算：虚拟时间暂时比所选速度慢，直到追上";
    // Tabs
    TabCluster => "Cluster", "集群";
    TabLedger => "Ledger", "账本";
    TabBroadcast => "Broadcast", "广播";
    TabInformers => "Informers", "Informer";
    TabEvents => "Events", "事件";
    TabTimeline => "Timeline", "时间线";
    TabRules => "Rules", "转发规则";
    RulesTitle => "kube-proxy rules, node by node", "各节点的 kube-proxy 规则";
    RulesCount => " {} rules on {} nodes", " {} 条规则，{} 个节点";
    RulesHint => "Each node's kube-proxy watches Services and EndpointSlices and turns them into rules: ClusterIP:port → the ready pods. Lag: virtual time from the write a rule was built from to the node applying it.", "每个节点的 kube-proxy watch Service 和 EndpointSlice，并把它们变成规则：ClusterIP:端口 → 就绪的 Pod。延迟：从规则所依据的写入到该节点应用规则所经过的虚拟时间。";
    NoRules => "No rules: no Service has a ClusterIP with a kube-proxy to apply it (try the scenario \"A Service follows its pods\").", "没有规则：还没有被 kube-proxy 应用的 Service（试试场景“Service 跟随它的 Pod”）。";
    NoEndpoints => "no endpoints (traffic is rejected)", "没有端点（流量被拒绝）";
    ColNode => "Node", "节点";
    ColService => "Service", "服务";
    ColClusterIp => "ClusterIP:port", "ClusterIP:端口";
    ColEndpoints => "Endpoints", "端点";
    ColApplied => "Applied", "应用于";
    LagMs => "{} ms", "{} 毫秒";
    TabConsole => "Console", "终端";
    TabActions => "Actions", "操作";
    TabScenarios => "Scenarios", "场景";
    TabEditor => "Editor", "编辑器";
    Views => "Views", "视图";
    Tools => "Tools", "工具";
    // Cluster view
    Nodes => "Nodes", "节点";
    Pods => "Pods", "Pod";
    PodsCount => "{} pods", "{} 个 Pod";
    OnePod => "1 pod", "1 个 Pod";
    Unscheduled => "Unscheduled", "未调度";
    Killed => "killed", "已宕机";
    Cordoned => "SchedulingDisabled", "禁止调度";
    EtcdMembers => "etcd members", "etcd 成员";
    Leader => "leader", "领导者";
    Follower => "follower", "跟随者";
    Candidate => "candidate", "候选者";
    Down => "down", "宕机";
    Term => "term", "任期";
    Quorum => "quorum", "法定人数";
    QuorumOk => "majority: writes commit", "多数派在线：写入可提交";
    QuorumLost => "no leader reaching a majority: writes and quorum reads fail; the watch caches answer resourceVersion=0 reads and keep open watches for about 33 s, then reinitialize (429) until the majority is back", "没有能联系到多数派的领导者：写入和法定读失败；watch 缓存约 33 秒内仍回答 resourceVersion=0 的读并保持已打开的 watch，之后重新初始化（429），直到多数派恢复";
    RaftIndex => "index", "索引";
    RaftCommit => "commit", "已提交";
    AppliedRevision => "applied rev", "已应用版本";
    Behind => "behind by", "落后";
    MatchIndex => "leader's match", "领导者记录的匹配位置";
    RaftLog => "Raft log", "Raft 日志";
    Isolated => "isolated", "已隔离";
    CutLinks => "cut links: ", "断开的链路：";
    Isolate => "Isolate", "隔离";
    Rejoin => "Rejoin", "重新连通";
    PartitionPicked => "Partition the ticked members from the rest", "把勾选的成员与其余成员分区";
    HealNetwork => "Heal the network", "修复网络";
    MoveLeaderHere => "Lead", "转为领导者";
    Alive => "alive", "存活";
    PodsOn => "Pods on {}", "{} 上的 Pod";
    NodeMapLabel => "Map of {} nodes: one cell per node, coloured by readiness, filled by pods", "{} 个节点的地图：每个格子一个节点，颜色表示是否就绪，填充表示 Pod 数";
    NodeMapHint => "One cell per node. Click a cell to list that node's pods.", "每个格子是一个节点。点击格子，列出该节点上的 Pod。";
    NodeMapCell => "{} · {} · {} of {} pods", "{} · {} · {} / {} 个 Pod";
    LegendReady => "Ready", "就绪";
    LegendNotReady => "NotReady", "未就绪";
    LegendUnknown => "no status yet", "尚无状态";
    LegendFill => "fill: pods of {}", "填充：Pod 数 / {}";
    NodeName => "Node", "节点";
    PodCardTitle => "{} · {} · READY {} · resourceVersion {}", "{} · {} · 就绪 {} · resourceVersion {}";
    RvShort => "rv {}", "页码 {}";
    PodRestarts => "RESTARTS: containers restarted {} times", "重启：容器已重启 {} 次";
    PodClaims => "Volumes from PersistentVolumeClaims: {}", "来自 PersistentVolumeClaim 的卷：{}";
    // Ledger
    LedgerTitle => "The ledger: one line per revision", "账本：每个页码一行";
    ColRevision => "RV", "页码";
    ColVerb => "Verb", "动作";
    ColObject => "Object", "对象";
    ColWriter => "Writer", "写入者";
    ColTime => "Time", "时间";
    LedgerLines => "{} lines, newest first", "共 {} 行，最新的在最上面";
    ClickToInspect => "Click a line to see the object as it was at that revision.", "点击一行，查看该对象在那一页时的样子。";
    ObjectAt => "{} at revision {}", "{}，第 {} 页";
    Close => "Close", "关闭";
    CompactedAt => "compacted up to revision {}", "已压缩到第 {} 页";
    Deleted => "(deleted at this revision)", "（在这一页被删除）";
    ColKey => "etcd key", "etcd 键";
    ColChange => "what changed", "改了什么";
    DiffNew => "new object: no earlier version", "新对象：没有更早的版本";
    DiffGone => "removed from etcd: the key is gone", "从 etcd 删除：键已不存在";
    DiffNone => "no field changed", "没有字段变化";
    DiffMore => "+{} more", "另 {} 项";
    // Broadcast
    Streams => "Open watch streams", "打开的 watch 流";
    ColStream => "Stream", "流";
    ColFilter => "Filter", "过滤条件";
    ColLastRv => "Last RV", "最后页码";
    ColDelivered => "Delivered", "已送达";
    ColFiltered => "Filtered out", "被过滤";
    ColPending => "Queued", "排队中";
    ColState => "State", "状态";
    StreamOpen => "open", "打开";
    StreamTimeout => "ended: timeout", "已结束：超时";
    StreamOverflow => "ended: too slow", "已结束：消费太慢";
    StreamExpired => "ended: 410 Gone", "已结束：410 Gone";
    StreamTerminated => "ended: watch cache reinitializing", "已结束：watch 缓存重新初始化";
    Drop => "Drop", "断开";
    DropHint => "Close this stream as a timeout would; its client resumes from its last RV", "像超时那样关闭这条流，客户端从最后页码续订";
    Raw => "Raw", "原始";
    RawTitle => "Stream {} exactly as the HTTP body", "流 {}：HTTP 响应体原文";
    Recent => "Recent events", "最近事件";
    FanOut => "Fan-out of revision {}", "第 {} 页的扇出";
    FanOutPick => "Pick a revision in the ledger to see which streams received it.", "在账本中选一页，查看哪些流收到了它。";
    Received => "received", "已收到";
    NotReceived => "filtered out", "被过滤";
    NotYet => "not yet delivered", "尚未送达";
    Outside => "not in its recent log", "不在其最近记录中";
    NoStreams => "No open streams.", "没有打开的流。";
    GroupedHint => "More than {} streams: one row per component and resource; expand a row to see its streams.", "超过 {} 条流：每个组件和资源一行；展开一行查看其中的流。";
    GroupStreams => "{}: {} streams, newest first", "{}：{} 条流，最新的在最上面";
    GroupReach => "received {} · refused {} · not offered {}", "收到 {} · 拒收 {} · 未投递 {}";
    ColStreams => "Streams", "流数";
    ColFanOut => "Fan-out", "扇出";
    Expand => "Expand", "展开";
    Collapse => "Collapse", "收起";
    StreamsOffered => "{} streams · {} offered", "{} 条流 · 投递尝试 {} 次";
    FanOutCounts => " · received by {}, filtered out by {}, skipped by the index (other namespace or node): {}, other resources: {}, opened later: {}", " · {} 条流收到，{} 条过滤掉，{} 条被索引跳过（别的命名空间或节点），{} 条是别的资源，{} 条之后才打开";
    ResizeConsole => "Resize the console", "调整终端宽度";
    ResizeConsoleHint => "Drag, or focus and press ← / →, to give the console more or less room", "拖动，或聚焦后按 ← / →，调整终端所占宽度";
    WrapLines => "Wrap", "换行";
    WrapLinesHint => "Wrap long lines instead of scrolling sideways", "长行自动换行，而不是横向滚动";
    // Fan-out diagram
    LaneCounts => "{} streams: {} received, {} refused, {} not offered", "{} 条流：{} 条收到，{} 条拒收，{} 条未投递";
    CacheAt => "informer cache at revision {}", "Informer 缓存在第 {} 页";
    EtcdLedger => "etcd ledger", "etcd 账本";
    FanOutSummary => "Revision {} ({} by {}): received by {} streams, refused by the filter of {}, not offered by the index to {} (other namespace or node), {} watch other resources.", "第 {} 页（{}，写入者 {}）：{} 条流收到，{} 条被过滤条件拒收，{} 条因索引未投递（别的命名空间或节点），{} 条监听别的资源。";
    FanOutNotInLedger => "Revision {} is no longer in the ledger's lines.", "第 {} 页已不在账本的行中。";
    FanOutFollow => "Follow", "跟随最新";
    PrevRevision => "Previous revision", "上一页";
    NextRevision => "Next revision", "下一页";
    ColIndex => "index", "索引";
    ColSubscriber => "subscriber · what it watches", "订阅者 · 监听什么";
    // Watch caches (the API server's cacher per resource)
    CachersTitle => "Watch caches: one etcd watch per resource feeds its streams", "watch 缓存：每种资源一个 etcd watch，供给它的所有流";
    CachersHint => "kube-apiserver lists each resource from etcd once, then holds one etcd watch on its prefix and keeps a window of recent events; every client watch of the resource is fed from it. A watch from a resourceVersion older than the window serves gets 410 Gone; while a cache reinitializes, its lists and watches get 429.", "kube-apiserver 对每种资源只从 etcd list 一次，之后在其前缀上保持一个 etcd watch，并保留一个最近事件的窗口；该资源的每个客户端 watch 都由它供给。从比窗口更早的 resourceVersion 开始的 watch 得到 410 Gone；缓存重新初始化期间，对它的 list 和 watch 得到 429。";
    CachersShowIdle => "show idle ({})", "显示空闲的（{}）";
    NoCachers => "No watch cache has a stream or an event yet.", "还没有带流或事件的 watch 缓存。";
    ColCacheWatch => "etcd watch", "etcd watch 状态";
    ColCacheRv => "cache RV / etcd", "缓存页码 / etcd";
    ColOldestServed => "from RV", "最早页码";
    ColWindow => "window", "事件窗口";
    ColObjects => "objects", "对象数";
    CacheWatching => "Watching on {}", "正在 watch {}";
    CacheRewatching => "Rewatching: {}", "重新 watch：{}";
    CacheReinitializing => "Reinitializing: {} — 429", "重新初始化：{} — 429";
    CacheRvOf => "rv {} / etcd {}", "页码 {} / etcd {}";
    CacheWindowOf => "{} of {} events", "{} / {} 个事件";
    CacheUpToDate => "The cache's resourceVersion is its newest event's revision (or the last progress notification's); its etcd watch has delivered everything up to etcd's revision {}.", "缓存的页码是它最新事件的页码（或最近一次进度通知的页码）；它的 etcd watch 已送达 etcd 第 {} 页之前的全部事件。";
    CacheBehind => "Behind: its etcd watch has delivered up to revision {}, etcd is at {}.", "落后：它的 etcd watch 只送达到第 {} 页，etcd 在第 {} 页。";
    CacheWindowHint => "A watch may start from revision {} or later; older gets 410 Gone. The window holds {} events before it drops the oldest or grows (events taken in since start: {}).", "watch 可以从第 {} 页或更晚开始，更早的得到 410 Gone。窗口装满 {} 个事件后丢弃最旧的或扩容（自启动以来收到的事件：{}）。";
    CacheTerminated => "client watches ended by reinitializing: {}", "因重新初始化而结束的客户端 watch：{}";
    // Fan-out diagram: the revision's path through etcd and its watch cache
    WatchCache => "watch cache", "watch 缓存";
    CacheNodeRv => "rv {}", "页码 {}";
    CacheNodeOn => "on {}", "连 {}";
    CacheNodeRewatching => "rewatching", "重新 watch";
    CacheNodeReinitializing => "429 relisting", "429 重新 list";
    CacheNodeRing => "{}/{} events", "{}/{} 事件";
    CacheNodeFrom => "serves ≥ {}", "可续订 ≥ {}";
    CacheNodeObjects => "{} objects", "{} 个对象";
    NoCacheFor => "no watch cache", "无 watch 缓存";
    EtcdWatchOn => "the watch cache's etcd watch is on {}", "watch 缓存的 etcd watch 连在 {} 上";
    EtcdWatchReached => "revision {} reached the watch cache of {} through its etcd watch", "第 {} 页已经由 etcd watch 送达 {} 的 watch 缓存";
    EtcdWatchPending => "revision {} not yet delivered to the watch cache of {} by its etcd watch", "第 {} 页尚未由 etcd watch 送达 {} 的 watch 缓存";
    EtcdWatchCut => "the etcd watch of the {} cache is not open: {}", "{} 缓存的 etcd watch 未打开：{}";
    // Watch cost
    WatchCostTitle => "The cost of many watches", "大量 watch 连接的代价";
    CostStreams => "open streams", "打开的流";
    CostDelivered => "events delivered to them", "送达它们的事件";
    CostFiltered => "refused by their filters", "被它们的过滤条件拒收";
    CostOffered => "offered by the index (since start)", "索引投递尝试（自启动）";
    CostEveryone => "Offering every write to every stream would be {} streams × {} revisions = {} offers.", "若每次写入都投递给每条流：{} 条流 × {} 页 = {} 次投递。";
    // Reconnect comparison
    ReconnectTitle => "Lost or duplicated events (§7)", "事件丢失或重复（§7）";
    ReconnectIntro => "Two clients watch the pods of {}: a naive watcher that reconnects without its last resourceVersion, and an informer that resumes from it.", "两个客户端监听 {} 的 Pod：一个重连时不带最后的 resourceVersion 的简单 watcher，一个从该版本续订的 Informer。";
    ReconnectStart => "Start both clients", "启动两个客户端";
    ReconnectRestart => "Start again", "重新开始";
    ReconnectConnected => "connected", "已连接";
    ReconnectCut => "connection cut", "连接已断开";
    ReconnectCutButton => "Cut their connection", "断开它们的连接";
    ReconnectRestore => "Restore the connection", "恢复连接";
    ReconnectHint => "Cut, then write in the console (kubectl delete pod …, kubectl label pod … --overwrite), then restore. For a 410, let a busy minute pass first (kubectl scale deployment orders-api -n production --replicas=30, then back to 5): the API server's watch cache keeps about 75 s of events.", "先断开，再在终端中写入（kubectl delete pod …、kubectl label pod … --overwrite），然后恢复连接。想看到 410，先让繁忙的一分钟过去（kubectl scale deployment orders-api -n production --replicas=30，再缩回 5）：API Server 的 watch 缓存只保留约 75 秒的事件。";
    NaiveWatcher => "naive watcher", "简单 watcher";
    ResumingInformer => "informer (resumes)", "Informer（续订）";
    TallyMissed => "missed (cache ≠ etcd)", "遗漏（缓存 ≠ etcd）";
    TallyDuplicates => "duplicated ADDED", "重复的 ADDED";
    TallyReceived => "events received", "收到的事件";
    TallyRelists => "relists", "重新 list";
    Tally410 => "410 Gone", "410 Gone（过期）";
    TallyReconnects => "reconnects", "重连次数";
    TallyCached => "pods cached", "缓存中的 Pod";
    CachedOf => "{} (etcd: {})", "{}（etcd：{}）";
    NotYetKnown => "catching up…", "追赶中…";
    SkippedByIndex => "not offered: other namespace / node", "未投递：别的命名空间 / 节点";
    OtherResource => "other resource", "别的资源";
    OpenedLater => "opened later", "之后才打开";
    // Informers
    InformersTitle => "Informer caches against the ledger", "各 Informer 缓存与账本的差距";
    ColComponent => "Component", "组件";
    ColResource => "Resource", "资源";
    ColCache => "Cache RV", "缓存页码";
    ColLatest => "Ledger RV", "账本页码";
    ColLag => "Lag", "滞后";
    ColRelists => "Relists", "重新 list";
    Col410 => "410s", "410 次数";
    NoInformers => "No informers yet (controllers start them).", "还没有 Informer（由控制器启动）。";
    WentBack => "went back in time: listed at {} from {}, below the {} it had reached", "回到了过去：以 {} 从 {} list，低于它已到达的 {}";
    SeenAgain => "seen again after their deletion: {}", "删除之后又看到了：{}";
    // Events
    EventsTitle => "Events, as kubectl get events prints them", "事件（与 kubectl get events 的输出一致）";
    EventsCount => "{} events", "共 {} 条事件";
    SortBy => "Sort", "排序";
    NoSort => "no --sort-by (list order)", "不加 --sort-by（列表顺序）";
    AllNamespaces => "all namespaces", "所有命名空间";
    NoEvents => "No events.", "没有事件。";
    // Timeline
    TimelineTitle => "Writes over virtual time, one lane per writer", "按虚拟时间排列的写入，每个写入者一条泳道";
    NoWrites => "No writes yet.", "还没有写入。";
    TimelineKeys => "Keyboard: Tab to the marks, ←/→ previous/next write, ↑/↓ the writer above/below, Home/End first/last, Enter shows the object, Esc closes it.", "键盘：Tab 进入标记，←/→ 上一笔/下一笔写入，↑/↓ 上/下一个写入者，Home/End 第一笔/最后一笔，回车查看对象，Esc 关闭。";
    MarkLabel => "revision {}: {} {} by {} at {}", "第 {} 页：{} {}，写入者 {}，时间 {}";
    // Console
    ConsoleTitle => "kubectl console", "kubectl 终端";
    ConsoleHint => "Type a kubectl command and press Enter. ↑/↓ history, Ctrl-C stops a -w stream.", "输入 kubectl 命令后回车。↑/↓ 翻历史，Ctrl-C 结束 -w 流。";
    ConsoleInput => "Command line", "命令行";
    Run => "Run", "执行";
    Stop => "Stop", "停止";
    Following => "following a watch stream", "正在跟随 watch 流";
    Clear => "Clear", "清屏";
    Examples => "Commands from the texts", "文中的命令";
    EditorTitle => "Files for kubectl apply -f", "kubectl apply -f 使用的文件";
    FileName => "File name", "文件名";
    Save => "Save", "保存";
    Saved => "saved", "已保存";
    ApplyFile => "kubectl apply -f", "kubectl apply -f";
    // Actions
    CreatePod => "Create pod", "创建 Pod";
    CreateDeployment => "Create deployment", "创建 Deployment";
    CreateDaemonSet => "Create DaemonSet", "创建 DaemonSet";
    CreateStatefulSet => "Create StatefulSet", "创建 StatefulSet";
    Scale => "Scale", "扩缩容";
    Label => "Label", "打标签";
    Delete => "Delete", "删除";
    Name => "Name", "名称";
    Image => "Image", "镜像";
    Namespace => "Namespace", "命名空间";
    Labels => "Labels (k=v,k=v)", "标签（k=v,k=v）";
    Replicas => "Replicas", "副本数";
    Kind => "Kind", "类型";
    Key => "Key", "键";
    Value => "Value", "值";
    Overwrite => "--overwrite", "--overwrite";
    NodeFailures => "Nodes", "节点故障";
    Kill => "Kill", "宕机";
    Restore => "Restore", "恢复";
    Drain => "Drain", "排空";
    DrainHint => "kubectl drain NODE --ignore-daemonsets --delete-emptydir-data --force, once: cordon the node, then evict each of its pods (a PodDisruptionBudget may refuse with 429)", "相当于执行一次 kubectl drain 节点 --ignore-daemonsets --delete-emptydir-data --force：先封锁节点，再逐个驱逐其上的 Pod（PodDisruptionBudget 可能以 429 拒绝）";
    DrainDone => "node/{} cordoned: {} evicted, {} refused (revision {})", "node/{} 已封锁：驱逐 {} 个，被拒绝 {} 个（第 {} 页）";
    EtcdFailures => "etcd members", "etcd 成员故障";
    ControlPlaneReplicas => "Control plane: leader election", "控制平面：领导者选举";
    ControlPlaneReplicasHint => "Each replica of kube-scheduler and kube-controller-manager tries to hold its Lease in kube-system (lease 15 s, renew deadline 10 s, retry 2 s); only the holder runs its controllers. Pause freezes a replica, its clock too.", "kube-scheduler 和 kube-controller-manager 的每个副本都试图持有 kube-system 中自己的 Lease（租期 15 秒，续约截止 10 秒，重试 2 秒）；只有持有者运行它的控制器。暂停会冻结一个副本，连同它的时钟。";
    ReplicasOfEach => "Replicas of each", "每个组件的副本数";
    RestartWithReplicas => "Restart the cluster with them", "以此副本数重启集群";
    PauseReplica => "Pause", "暂停";
    ResumeReplica => "Resume", "恢复";
    ReplicaLeads => "leads", "领导者";
    ReplicaWaits => "candidate", "候选者";
    ReplicaPaused => "paused", "已暂停";
    ReplicaStale => "believes it leads — the Lease names another", "以为自己是领导者——Lease 上是别人";
    ReplicaRestarts => "restarted {}×", "已重启 {} 次";
    ApiServers => "API servers", "API Server";
    ApiServersHint => "Instances behind a load balancer on the same etcd, each with its own watch caches; a client keeps its instance until that one stops. Cut: its caches stop hearing etcd (frozen) while it keeps serving them; Stop: its clients move to another.", "负载均衡器后面、同一个 etcd 上的多个实例，各有自己的 watch 缓存；客户端一直使用分给它的实例，直到该实例停止。切断：它的缓存不再听到 etcd（冻结），它仍用缓存提供服务；停止：它的客户端转到另一个实例。";
    ApiServerCount => "Instances", "实例数";
    CutApiserver => "Cut", "切断";
    StopApiserver => "Stop", "停止";
    RestoreApiserver => "Restore", "恢复";
    ApiserverClients => "{} clients", "{} 个客户端";
    ApiserverServing => "serving", "服务中";
    ApiserverCut => "cache frozen", "缓存冻结";
    ApiserverStopped => "stopped", "已停止";
    LaneStreams => "{} streams", "{} 条流";
    StaleWrites => "Writes of a leader that lost its Lease", "失去 Lease 的领导者的写入";
    StaleWritesHint => "Written while the Lease named another replica: those with a resourceVersion precondition were refused with 409 Conflict; the others landed.", "在 Lease 写着另一个副本时写下的：带 resourceVersion 前提的被 409 Conflict 拒绝；其余的都写进去了。";
    StaleRefused => "409 refused", "409 被拒绝";
    StaleLanded => "landed at revision {}", "写入于第 {} 页";
    Ledger => "Ledger", "账本";
    CompactNow => "Compact the ledger now", "立即压缩账本";
    CompactHint => "Old pages (continue) and exact reads behind the compacted revision get 410 Gone; watches are served by the API server's watch cache, whose own window decides their 410", "落后于压缩点的旧分页（continue）和精确读会收到 410 Gone；watch 由 API Server 的 watch 缓存提供，它们的 410 取决于缓存自己的窗口";
    Conflict => "Conflicting write", "冲突写入";
    ConflictHint => "Two editors read the same object at the same RV and both submit", "两个编辑者在同一页码读取同一对象，并先后提交";
    ConflictTarget => "Deployment", "Deployment";
    RunConflict => "Run the conflict", "制造冲突";
    ConflictStep1 => "1. Both editors read the object at revision {}", "1. 两个编辑者都在第 {} 页读取了对象";
    ConflictStep2 => "2. Editor A submits first: accepted, the object moves to revision {}", "2. 编辑者 A 先提交：被接受，对象前进到第 {} 页";
    ConflictStep3 => "3. Editor B submits with the stale revision: rejected with 409", "3. 编辑者 B 带着过期页码提交：被 409 拒绝";
    ConflictStep4 => "4. Retry: B re-reads (revision {}), re-applies its change, accepted at revision {}", "4. 重试：B 重新读取（第 {} 页），重新应用修改，在第 {} 页被接受";
    KubectlActions => "Services, namespaces, rollouts", "Service、命名空间、发布";
    KubectlActionsHint => "Each button types its kubectl command in the console, for the Namespace and Name above", "每个按钮都在控制台里输入对应的 kubectl 命令，作用于上面的命名空间和名称";
    Port => "Port", "端口";
    TargetPort => "Target port", "目标端口";
    Expose => "Expose the deployment", "为 Deployment 创建 Service";
    Cascade => "Cascade", "级联方式";
    DeleteDeployment => "Delete the deployment", "删除 Deployment";
    RolloutUndo => "Roll back the deployment", "回滚 Deployment";
    CreateJob => "Create a job", "创建 Job";
    CreateCronJob => "Create an every-minute CronJob", "创建每分钟运行的 CronJob";
    DeleteNamespace => "Delete the namespace", "删除命名空间";
    Result => "Result", "结果";
    ActionDone => "done: revision {}", "完成：第 {} 页";
    Error => "Error", "错误";
    // Scenarios
    ScenariosTitle => "Guided scenarios", "引导场景";
    Start => "Start", "开始";
    Next => "Next", "下一步";
    Finish => "Finish", "结束";
    StepOf => "Step {} of {}", "第 {} 步，共 {} 步";
    ScenarioDone => "Scenario complete.", "场景完成。";
    LabOpen => "Open lab…", "打开实验…";
    LabOpenHint => "Load a lab file (YAML) a trainer wrote", "加载培训师编写的实验文件（YAML）";
    LabRestart => "Restart lab", "重新开始实验";
    LabTask => "Task", "任务";
    LabHint => "Hint", "提示";
    LabSolution => "Solution", "答案";
    LabPassed => "Done: every check passes. Press Next.", "完成：所有检查都已通过。请按“下一步”。";
    LabChecking => "Not yet: the checks run again as time passes and after each command.", "尚未完成：每条命令之后、随着时间推移，检查会再次运行。";
    LabSaw => "saw {}", "看到 {}";
    LabRefused => "Lab {} refused: {}", "实验 {} 被拒绝：{}";
    LabRefusedAt => "Lab {} refused, line {} column {}: {}", "实验 {} 被拒绝，第 {} 行第 {} 列：{}";
    ExportCluster => "Export", "导出";
    ExportHint => "Download this cluster as watchlab-cluster.json", "将当前集群下载为 watchlab-cluster.json";
    ImportCluster => "Import", "导入";
    ImportHint => "Load a cluster from a watchlab-cluster.json file", "从 watchlab-cluster.json 文件载入集群";
    ImportFailed => "Import failed, the current cluster is kept: {}", "导入失败，保留当前集群：{}";
    Imported => "Cluster imported (revision {}).", "集群已导入（revision {}）。";
    ExportFailed => "Export failed: {}", "导出失败：{}";
    SaveSkipped => "Not saved in this browser: {}", "未保存到浏览器：{}";
    SaveTooLarge => "the saved cluster would be {} bytes (at most {})", "保存内容将有 {} 字节（上限 {}）";
    RestoreFailed => "The saved cluster could not be restored, a fresh cluster is used: {}", "无法恢复已保存的集群，已使用新集群：{}";
    Narration => "Narration", "讲解";
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_text_has_both_languages_and_matching_placeholders() {
        for t in T::ALL {
            let (en, zh) = t.pair();
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{t:?}");
            assert_eq!(en.matches("{}").count(), zh.matches("{}").count(), "{t:?}");
        }
    }

    #[test]
    fn chinese_texts_are_translated() {
        // Keys whose text is a command, a flag or a proper noun may stay the same.
        let same_ok: HashSet<_> = [
            T::Overwrite,
            T::ApplyFile,
            T::ConflictTarget,
            T::TabInformers,
            T::EventsTitle,
        ]
        .into_iter()
        .collect();
        for t in T::ALL {
            let (en, zh) = t.pair();
            if !same_ok.contains(t) {
                assert_ne!(en, zh, "{t:?} is not translated");
            }
        }
    }

    #[test]
    fn fill_replaces_placeholders_in_order() {
        assert_eq!(
            T::ObjectAt.fill(Lang::En, &["pods/web", "12"]),
            "pods/web at revision 12"
        );
        assert_eq!(
            T::ObjectAt.fill(Lang::Zh, &["pods/web", "12"]),
            "pods/web，第 12 页"
        );
        assert_eq!(T::PodsCount.fill(Lang::En, &[]), " pods");
    }

    #[test]
    fn language_codes_round_trip() {
        for l in [Lang::En, Lang::Zh] {
            assert_eq!(Lang::from_code(l.code()), Some(l));
            assert_eq!(l.other().other(), l);
        }
        assert_eq!(Lang::from_code("fr"), None);
    }
}
