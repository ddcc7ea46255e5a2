//! The page's views (tabs): what a learner looks at, which a lab's step can switch to by its id.

/// A view of the cluster (a tab).
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
