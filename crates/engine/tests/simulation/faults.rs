//! The fault schedule: what can go wrong in a run ([`Fault`]), each seed's own weights for the
//! kinds of fault (swarm testing), and the schedule a seed draws. Applying a fault is the
//! driver's business (`Sim::apply`).

use super::*;

/// One step of a fault schedule.
#[derive(Debug, Clone)]
pub(super) enum Fault {
    KillNode(usize),
    RestoreNode(usize),
    KillEtcd(usize),
    RestoreEtcd(usize),
    Compact,
    Scale(i32),
    SetImage(u32),
    /// Several writers read the same Deployment; the first scales it, the others annotate it
    /// from their stale copies (409), then one retries on conflict.
    RacingWriters {
        writers: u32,
        replicas: i32,
        note: u32,
    },
    /// The observers stop reading for a while (a busy stream overflows and is closed) and the
    /// store is compacted before they resume from their last version: 410, re-list.
    StallObservers(u64),
    /// Open watch streams (anyone's) are cut, as by a broken connection; one in three is kept.
    DropWatches(u64),
    /// `kubectl delete pod` of one of the Deployment's pods (picked by this number).
    DeletePod(u64),
    /// A pod of the Deployment gets `app=orders-api-debug` (or back): out of (into) its
    /// ReplicaSet's selector.
    Relabel(u64),
    /// Two writers create the same bare pod in the sandbox.
    CreateRace(u64),
    /// Two writers change the same bare pod's labels from one read.
    UpdateRace(u64),
    /// `kubectl delete pod` of a bare pod.
    DeleteBare(u64),
    /// `kubectl cordon` / `kubectl uncordon`.
    Cordon(usize),
    Uncordon(usize),
    /// Every network link of etcd member `i` is cut (it keeps running).
    IsolateEtcd(usize),
    /// The links between etcd member `i` (and `i + 1` when `pair`) and the rest are cut.
    PartitionEtcd {
        first: usize,
        pair: bool,
    },
    /// Every etcd link is restored.
    HealEtcd,
    /// `kube-apiserver-i`'s watch caches stop hearing etcd (a no-op past the run's instances).
    CutApiserver(usize),
    /// `kube-apiserver-i` stops (refused for the last one running).
    StopApiserver(usize),
    RestoreApiserver(usize),
    /// Replica `replica` of kube-controller-manager (`scheduler`: of kube-scheduler) freezes.
    PauseComponent {
        scheduler: bool,
        replica: u32,
    },
    ResumeComponent {
        scheduler: bool,
        replica: u32,
    },
    Wait(u64),
}

/// The replica a pause or resume names: `kube-scheduler-1`, `kube-controller-manager-0`.
pub(super) fn replica_name(scheduler: bool, replica: u32) -> String {
    let component = if scheduler {
        "kube-scheduler"
    } else {
        "kube-controller-manager"
    };
    format!("{component}-{replica}")
}

/// A seed's control plane: 1 to 3 API servers and 1 or 2 replicas of each leader-elected
/// component, so every shape meets every fault.
pub(super) fn control_plane_of(seed: u64) -> (u32, u32) {
    (1 + (seed % 3) as u32, 1 + ((seed / 3) % 2) as u32)
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::KillNode(i) => write!(f, "kill {}", NODES[*i]),
            Fault::RestoreNode(i) => write!(f, "restore {}", NODES[*i]),
            Fault::KillEtcd(i) => write!(f, "kill etcd-{i}"),
            Fault::RestoreEtcd(i) => write!(f, "restore etcd-{i}"),
            Fault::Compact => write!(f, "compact"),
            Fault::Scale(n) => write!(f, "scale to {n}"),
            Fault::SetImage(v) => write!(f, "set image {DEPLOYMENT}:{v}"),
            Fault::RacingWriters {
                writers,
                replicas,
                note,
            } => {
                write!(
                    f,
                    "race of {writers}: scale to {replicas} vs annotate {note}"
                )
            }
            Fault::StallObservers(ms) => write!(f, "observers stall {ms} ms, then a compaction"),
            Fault::DropWatches(pick) => write!(f, "drop watches #{pick}"),
            Fault::DeletePod(pick) => write!(f, "delete pod #{pick}"),
            Fault::Relabel(pick) => write!(f, "relabel pod #{pick}"),
            Fault::CreateRace(pick) => write!(f, "two creates of job-{}", pick % JOB_NAMES),
            Fault::UpdateRace(pick) => write!(f, "two label updates of bare pod #{pick}"),
            Fault::DeleteBare(pick) => write!(f, "delete bare pod #{pick}"),
            Fault::Cordon(i) => write!(f, "cordon {}", NODES[*i]),
            Fault::Uncordon(i) => write!(f, "uncordon {}", NODES[*i]),
            Fault::IsolateEtcd(i) => write!(f, "isolate etcd-{i}"),
            Fault::PartitionEtcd { first, pair } => {
                let group = partition_group(*first, *pair);
                write!(f, "partition etcd {{{}}} from the rest", group.join(", "))
            }
            Fault::HealEtcd => write!(f, "heal the etcd network"),
            Fault::CutApiserver(i) => write!(f, "cut kube-apiserver-{i} from etcd"),
            Fault::StopApiserver(i) => write!(f, "stop kube-apiserver-{i}"),
            Fault::RestoreApiserver(i) => write!(f, "restore kube-apiserver-{i}"),
            Fault::PauseComponent { scheduler, replica } => {
                write!(f, "pause {}", replica_name(*scheduler, *replica))
            }
            Fault::ResumeComponent { scheduler, replica } => {
                write!(f, "resume {}", replica_name(*scheduler, *replica))
            }
            Fault::Wait(ms) => write!(f, "wait {ms} ms"),
        }
    }
}

/// The kinds of fault a schedule draws from (the last is a plain wait).
const FAULT_KINDS: usize = 26;

/// Swarm testing: each seed first draws its own weight for every kind of fault (0 to 3; 0 means
/// that kind never happens in this run), so one run piles up node kills with compactions,
/// another races writers during a quorum loss with no node fault at all — combinations a single
/// fixed mix rarely makes. Printed with the seed when it fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Weights([u64; FAULT_KINDS]);

impl Weights {
    pub(super) fn of(seed: u64) -> Weights {
        let mut rng = SimRng::child(seed, "simulation/weights");
        let mut w = [0; FAULT_KINDS];
        for x in w.iter_mut() {
            *x = rng.below(4);
        }
        // Waits always stay possible, so a schedule is never all faults back to back.
        w[FAULT_KINDS - 1] = w[FAULT_KINDS - 1].max(1);
        Weights(w)
    }

    /// A kind, drawn in proportion to the weights.
    fn draw(&self, rng: &mut SimRng) -> usize {
        let total: u64 = self.0.iter().sum();
        let mut pick = rng.below(total);
        for (kind, w) in self.0.iter().enumerate() {
            if pick < *w {
                return kind;
            }
            pick -= w;
        }
        FAULT_KINDS - 1
    }
}

impl fmt::Display for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w: Vec<String> = self.0.iter().map(u64::to_string).collect();
        write!(f, "{}", w.join(""))
    }
}

/// A schedule of 6–14 faults, each followed by a short wait, drawn from `seed` with the seed's
/// own [`Weights`].
pub(super) fn schedule(seed: u64) -> Vec<Fault> {
    let weights = Weights::of(seed);
    let mut rng = SimRng::child(seed, "simulation/schedule");
    let n = 6 + rng.below(9);
    let mut out = Vec::new();
    for _ in 0..n {
        let fault = match weights.draw(&mut rng) {
            0 => Fault::KillNode(rng.below(3) as usize),
            1 => Fault::RestoreNode(rng.below(3) as usize),
            2 => Fault::KillEtcd(rng.below(ETCD_MEMBERS as u64) as usize),
            3 => Fault::RestoreEtcd(rng.below(ETCD_MEMBERS as u64) as usize),
            4 => Fault::Compact,
            5 => Fault::Scale(rng.below(6) as i32),
            6 => Fault::SetImage(1 + rng.below(3) as u32),
            7 => Fault::RacingWriters {
                writers: 2 + rng.below(3) as u32,
                replicas: 1 + rng.below(5) as i32,
                note: rng.below(1000) as u32,
            },
            8 => Fault::StallObservers(20_000 + rng.below(40_000)),
            9 => Fault::DeletePod(rng.next_u64()),
            10 => Fault::Cordon(rng.below(3) as usize),
            11 => Fault::Uncordon(rng.below(3) as usize),
            12 => Fault::DropWatches(rng.next_u64()),
            13 => Fault::Relabel(rng.next_u64()),
            14 => Fault::CreateRace(rng.next_u64()),
            15 => Fault::UpdateRace(rng.next_u64()),
            16 => Fault::DeleteBare(rng.next_u64()),
            17 => Fault::IsolateEtcd(rng.below(ETCD_MEMBERS as u64) as usize),
            18 => Fault::PartitionEtcd {
                first: rng.below(ETCD_MEMBERS as u64) as usize,
                pair: rng.below(2) == 1,
            },
            19 => Fault::HealEtcd,
            20 => Fault::CutApiserver(rng.below(3) as usize),
            21 => Fault::StopApiserver(rng.below(3) as usize),
            22 => Fault::RestoreApiserver(rng.below(3) as usize),
            23 => Fault::PauseComponent {
                scheduler: rng.below(2) == 1,
                replica: rng.below(2) as u32,
            },
            24 => Fault::ResumeComponent {
                scheduler: rng.below(2) == 1,
                replica: rng.below(2) as u32,
            },
            _ => Fault::Wait(1_000 + rng.below(60_000)),
        };
        out.push(fault);
        out.push(Fault::Wait(200 + rng.below(15_000)));
    }
    out
}

/// The etcd members a partition fault cuts off: member `first`, and the next one with `pair`
/// (a minority of one or two of the three members, or a majority of two).
pub(super) fn partition_group(first: usize, pair: bool) -> Vec<String> {
    let mut group = vec![format!("etcd-{first}")];
    if pair {
        group.push(format!("etcd-{}", (first + 1) % ETCD_MEMBERS));
    }
    group
}
