//! The controller runtime: the loop every queue-driven controller shares, written once.
//!
//! A client-go controller is its event handlers (informer notifications mapped to keys on a
//! work queue), a wait for the caches to sync, and workers repeating `processNextWorkItem`: take
//! a key, sync it against the caches, then `Forget` it on success (maybe `AddAfter` a delay) or
//! `AddRateLimited` it on failure, and always `Done`. kube-rs's `kube-runtime` splits the same
//! shape into a reconciler that answers an `Action` and a runner that owns the queue. Here a
//! [`Reconciler`] supplies its informers, how their notifications map to keys
//! ([`Reconciler::watch`]) and `reconcile(key) -> Result<Action, Requeue>`; a [`Runner`] owns its
//! [`WorkQueue`], waits for [`Reconciler::has_synced`], drains the queue through one [`Worker`]
//! and reports when it next needs to run, and is the [`Controller`] the control plane steps.
//!
//! A reconcile that can be long (the ReplicaSet controller's burst of 500 creates) may stop
//! part-way through [`Reconciler::reconcile_until`]; the runner also stops between two keys when
//! asked. Either way the next step goes on exactly there without reading the informers first,
//! so the writes are those of one uncut step (the frame-budget slicing of
//! [`Controller::step_until`]). The garbage collector, which upstream runs two worker pools over
//! two queues sharing one graph, uses two [`Worker`]s directly.

use super::shared_informer::InformerRef;
use super::{earliest, Controller, Requeue, Stepped};
use crate::apiserver::ApiServer;
use crate::client::WorkQueue;
use crate::clock::Timestamp;

/// What a reconcile that went through asks for next (kube-runtime's `Action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing: the key is forgotten until a notification adds it again.
    Done,
    /// Look again after this many virtual milliseconds (`queue.AddAfter`: a Deployment waiting
    /// for its old pods, minReadySeconds, a scheduling back-off); the failure count is reset.
    RequeueAfter(u64),
}

/// The outcome of one key's reconcile: an [`Action`], or a [`Requeue`] (re-added with the rate
/// limiter's back-off).
pub type Reconciled = Result<Action, Requeue>;

/// The part of a controller the runtime does not write: what it watches and what it does for
/// one key.
pub trait Reconciler: 'static {
    /// What its work queue holds (namespace/name keys for most; uids for some).
    type Key: Clone + Ord + 'static;

    /// The user agent its requests carry (`replicaset-controller`, ...).
    fn name(&self) -> &str;

    /// Its informers (its own and the shared ones it reads), for the UI and for parking.
    fn informers(&self) -> Vec<InformerRef<'_>>;

    /// Its event handlers: pumps its informers (and flushes its event recorders) at `now`, and
    /// adds to `queue` the keys their notifications map to.
    fn watch(&mut self, now: Timestamp, api: &mut ApiServer, queue: &mut WorkQueue<Self::Key>);

    /// `cache.WaitForCacheSync`: no key is reconciled before every informer has listed.
    fn has_synced(&self) -> bool;

    /// The controller's `sync*` function for one key, reading the caches and writing through
    /// `api`.
    fn reconcile(&mut self, now: Timestamp, api: &mut ApiServer, key: &Self::Key) -> Reconciled;

    /// [`Reconciler::reconcile`] that may stop part-way when `stop` says so; `None` when it
    /// stopped. The runner then calls it again with the same key at the same instant, nothing
    /// else run in between, and it goes on where it stopped. By default a reconcile is whole.
    fn reconcile_until(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        key: &Self::Key,
        _stop: &mut dyn FnMut() -> bool,
    ) -> Option<Reconciled> {
        Some(self.reconcile(now, api, key))
    }

    /// When it needs a step on its own besides its queue's delayed keys: its informers'
    /// deliveries, its recorders' retries, a periodic timer.
    fn next_wakeup(&self) -> Option<Timestamp>;
}

/// One queue and the worker loop over it (`processNextWorkItem`, repeated while keys are
/// ready): the one place where a key is taken, reconciled, forgotten or re-added, and done.
pub struct Worker<K> {
    queue: WorkQueue<K>,
    /// The key whose reconcile stopped part-way, to go on with first.
    unfinished: Option<K>,
}

impl<K: Clone + Ord + 'static> Default for Worker<K> {
    fn default() -> Self {
        Worker {
            queue: WorkQueue::default(),
            unfinished: None,
        }
    }
}

impl<K: Clone + Ord> Worker<K> {
    /// Its queue, for the event handlers to add keys to.
    pub fn queue(&self) -> &WorkQueue<K> {
        &self.queue
    }

    pub fn queue_mut(&mut self) -> &mut WorkQueue<K> {
        &mut self.queue
    }

    /// Reconciles every key ready at `now`, in queue order; `reconcile` is given the key, the
    /// queue (an item's work may add others to it, as the garbage collector's does) and `stop`,
    /// and answers `None` when it stopped part-way (it is given the same key again next time).
    /// Asks `stop` after each key while more are ready: false when it stopped, with work left
    /// at this instant.
    pub fn drain(
        &mut self,
        now: Timestamp,
        stop: &mut dyn FnMut() -> bool,
        mut reconcile: impl FnMut(&K, &mut WorkQueue<K>, &mut dyn FnMut() -> bool) -> Option<Reconciled>,
    ) -> bool {
        loop {
            let key = match self.unfinished.take() {
                Some(key) => key,
                None => match self.queue.get(now) {
                    Some(key) => key,
                    None => return true,
                },
            };
            let Some(result) = reconcile(&key, &mut self.queue, stop) else {
                self.unfinished = Some(key);
                return false;
            };
            self.settle(now, key, result);
            if self.queue.has_ready(now) && stop() {
                return false;
            }
        }
    }

    /// Hands a reconciled key back to the queue: forgotten (and due again after a delay), or
    /// re-added with back-off; done either way.
    fn settle(&mut self, now: Timestamp, key: K, result: Reconciled) {
        match result {
            Ok(action) => {
                self.queue.forget(&key);
                if let Action::RequeueAfter(ms) = action {
                    self.queue.add_after(key.clone(), ms, now);
                }
            }
            Err(Requeue) => self.queue.add_rate_limited(key.clone(), now),
        }
        self.queue.done(&key);
    }
}

/// A [`Reconciler`] with its work queue: the [`Controller`] the control plane steps.
pub struct Runner<R: Reconciler> {
    reconciler: R,
    worker: Worker<R::Key>,
    /// The last step stopped part-way: the next goes on without reading the informers first.
    stopped: bool,
}

impl<R: Reconciler> Runner<R> {
    pub fn new(reconciler: R) -> Self {
        Runner {
            reconciler,
            worker: Worker::default(),
            stopped: false,
        }
    }

    pub fn reconciler(&self) -> &R {
        &self.reconciler
    }

    pub fn reconciler_mut(&mut self) -> &mut R {
        &mut self.reconciler
    }
}

impl<R: Reconciler> Controller for Runner<R> {
    fn name(&self) -> &str {
        self.reconciler.name()
    }

    fn informers(&self) -> Vec<InformerRef<'_>> {
        self.reconciler.informers()
    }

    fn step(&mut self, now: Timestamp, api: &mut ApiServer) -> Option<Timestamp> {
        super::whole_step(self, now, api)
    }

    fn step_until(
        &mut self,
        now: Timestamp,
        api: &mut ApiServer,
        stop: &mut dyn FnMut() -> bool,
    ) -> Stepped {
        let r = &mut self.reconciler;
        if !std::mem::take(&mut self.stopped) {
            r.watch(now, api, self.worker.queue_mut());
        }
        if r.has_synced() {
            let drained = self.worker.drain(now, stop, |key, _, stop| {
                r.reconcile_until(now, api, key, stop)
            });
            if !drained {
                self.stopped = true;
                return Stepped::Stopped;
            }
        }
        Stepped::Done(earliest([
            r.next_wakeup(),
            self.worker.queue().next_ready_at(),
        ]))
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<R>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker's loop on its own: a failed key comes back with back-off, a success is
    /// forgotten, a requeue-after comes back at its time, and a stop inside a reconcile goes on
    /// with the same key.
    #[test]
    fn drains_forgets_backs_off_and_goes_on_after_a_stop() {
        let mut w: Worker<&str> = Worker::default();
        let t0 = Timestamp::ZERO;
        w.queue_mut().add("default/a");
        w.queue_mut().add("default/b");
        let mut seen = Vec::new();
        let drained = w.drain(t0, &mut || false, |key, _, _| {
            seen.push(*key);
            Some(match *key {
                "default/a" => Err(Requeue),
                _ => Ok(Action::RequeueAfter(1_000)),
            })
        });
        assert!(drained);
        assert_eq!(seen, ["default/a", "default/b"]);
        assert_eq!(w.queue().num_requeues(&"default/a"), 1);
        // client-go's default controller rate limiter: 5 ms for the first failure.
        assert_eq!(w.queue().next_ready_at(), Some(t0.plus_millis(5)));
        let t1 = t0.plus_millis(5);
        seen.clear();
        let mut first = true;
        let drained = w.drain(t1, &mut || false, |key, _, _| {
            seen.push(*key);
            // Stops part-way the first time it is given the key.
            if std::mem::take(&mut first) {
                return None;
            }
            Some(Ok(Action::Done))
        });
        assert!(!drained, "stopped inside the reconcile");
        let drained = w.drain(t1, &mut || false, |key, _, _| {
            seen.push(*key);
            Some(Ok(Action::Done))
        });
        assert!(drained);
        assert_eq!(
            seen,
            ["default/a", "default/a"],
            "the same key, gone on with"
        );
        assert_eq!(w.queue().num_requeues(&"default/a"), 0, "forgotten");
        assert_eq!(w.queue().next_ready_at(), Some(t0.plus_millis(1_000)));
        assert!(w.drain(t1, &mut || false, |_, _, _| unreachable!("nothing ready")));
    }

    /// Asked to stop between two ready keys, the worker leaves the second for the next call.
    #[test]
    fn stops_between_keys_only_while_more_are_ready() {
        let mut w: Worker<u32> = Worker::default();
        for k in [1, 2, 3] {
            w.queue_mut().add(k);
        }
        let mut seen = Vec::new();
        let mut stops = 0;
        let mut stop = || {
            stops += 1;
            true
        };
        let drained = w.drain(Timestamp::ZERO, &mut stop, |k, _, _| {
            seen.push(*k);
            Some(Ok(Action::Done))
        });
        assert!(!drained);
        assert_eq!(seen, [1]);
        while !w.drain(Timestamp::ZERO, &mut || true, |k, _, _| {
            seen.push(*k);
            Some(Ok(Action::Done))
        }) {}
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(stops, 1);
    }
}
