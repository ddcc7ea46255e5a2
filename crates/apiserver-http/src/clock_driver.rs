//! Virtual time driven by the wall clock: the engine only moves when told, so the server maps
//! elapsed real time (× speed) onto a virtual target, and the cluster advances itself to it
//! (`Cluster::advance_applying`) from a periodic task and before every request, so answers,
//! AGE columns and watch timeouts follow real time.

use tokio::time::Instant;
use watchlab_engine::clock::Timestamp;

/// The period of the background tick; between ticks requests advance the clock themselves.
pub const TICK_MS: u64 = 50;

/// Maps real instants to virtual timestamps.
#[derive(Debug, Clone, Copy)]
pub struct ClockDriver {
    started: Instant,
    origin: Timestamp,
    speed: f64,
}

impl ClockDriver {
    pub fn new(origin: Timestamp, speed: f64) -> Self {
        ClockDriver {
            started: Instant::now(),
            origin,
            speed,
        }
    }

    /// The virtual time `elapsed_ms` real milliseconds after the start.
    pub fn virtual_at(&self, elapsed_ms: u128) -> Timestamp {
        let virtual_ms = (elapsed_ms as f64 * self.speed).min(u64::MAX as f64 / 2.0) as u64;
        self.origin.plus_millis(virtual_ms)
    }

    /// The real time that `virtual_ms` of virtual time take at this speed.
    pub fn real_duration(&self, virtual_ms: u64) -> std::time::Duration {
        let speed = if self.speed > 0.0 { self.speed } else { 1.0 };
        std::time::Duration::from_secs_f64(virtual_ms as f64 / 1000.0 / speed)
    }

    /// The virtual now: the origin plus the real time elapsed since, times the speed.
    pub fn target(&self) -> Timestamp {
        self.virtual_at(self.started.elapsed().as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_scales_elapsed_time_from_the_origin() {
        let d = ClockDriver::new(Timestamp::from_millis(1_000), 2.5);
        assert_eq!(d.virtual_at(0), Timestamp::from_millis(1_000));
        assert_eq!(d.virtual_at(400), Timestamp::from_millis(2_000));
        let slow = ClockDriver::new(Timestamp::ZERO, 0.1);
        assert_eq!(slow.virtual_at(1_000), Timestamp::from_millis(100));
        let huge = ClockDriver::new(Timestamp::ZERO, 1e300);
        assert!(huge.virtual_at(u128::MAX) > Timestamp::ZERO);
    }
}
