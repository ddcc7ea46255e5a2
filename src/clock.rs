//! The virtual clock's driver. The engine only moves when told to; the page tells it on every
//! browser tick how much real time passed, and this turns that into virtual milliseconds
//! (real elapsed × speed, capped per frame so one slow frame — a background tab, a debugger —
//! never makes the engine run minutes of simulated work at once and block the page).

/// Longest real time one frame may account for (ms). At 60× this is 15 s of virtual time.
pub const MAX_FRAME_MS: f64 = 250.0;

/// How many virtual milliseconds pass per real millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Speed {
    #[default]
    X1,
    X10,
    X60,
}

impl Speed {
    pub const ALL: [Speed; 3] = [Speed::X1, Speed::X10, Speed::X60];

    pub fn factor(self) -> u32 {
        match self {
            Speed::X1 => 1,
            Speed::X10 => 10,
            Speed::X60 => 60,
        }
    }

    /// The button label (`1×`).
    pub fn label(self) -> &'static str {
        match self {
            Speed::X1 => "1×",
            Speed::X10 => "10×",
            Speed::X60 => "60×",
        }
    }
}

/// Turns real frame times into virtual time steps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClockDriver {
    speed: Speed,
    paused: bool,
    last_real_ms: Option<f64>,
    /// Sub-millisecond remainder carried to the next frame so slow speeds do not drift.
    carry: f64,
}

impl ClockDriver {
    pub fn new(speed: Speed, paused: bool) -> Self {
        ClockDriver {
            speed,
            paused,
            ..ClockDriver::default()
        }
    }

    pub fn speed(&self) -> Speed {
        self.speed
    }

    pub fn paused(&self) -> bool {
        self.paused
    }

    pub fn set_speed(&mut self, speed: Speed) {
        self.speed = speed;
    }

    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
        self.carry = 0.0;
    }

    /// A browser frame at real time `real_now_ms` (a monotonic clock such as
    /// `performance.now()`): the virtual milliseconds to advance. The first frame only sets the
    /// reference point; a clock going backwards counts as no time.
    pub fn frame(&mut self, real_now_ms: f64) -> u64 {
        let last = self.last_real_ms.replace(real_now_ms);
        let Some(last) = last else { return 0 };
        if self.paused || !real_now_ms.is_finite() || !last.is_finite() {
            return 0;
        }
        let elapsed = (real_now_ms - last).clamp(0.0, MAX_FRAME_MS);
        let exact = elapsed * f64::from(self.speed.factor()) + self.carry;
        let whole = exact.floor();
        self.carry = exact - whole;
        // `whole` is in [0, MAX_FRAME_MS × 60 + 1): always representable.
        whole as u64
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn first_frame_sets_the_reference() {
        let mut c = ClockDriver::new(Speed::X1, false);
        assert_eq!(c.frame(1000.0), 0);
        assert_eq!(c.frame(1100.0), 100);
    }

    #[test]
    fn speed_multiplies_and_pause_stops() {
        let mut c = ClockDriver::new(Speed::X60, false);
        c.frame(0.0);
        assert_eq!(c.frame(100.0), 6000);
        c.set_paused(true);
        assert_eq!(c.frame(200.0), 0);
        c.set_paused(false);
        c.set_speed(Speed::X10);
        assert_eq!(c.frame(250.0), 500);
    }

    #[test]
    fn a_long_frame_is_capped() {
        let mut c = ClockDriver::new(Speed::X60, false);
        c.frame(0.0);
        assert_eq!(c.frame(60_000.0), (MAX_FRAME_MS as u64) * 60);
    }

    #[test]
    fn backwards_or_broken_clocks_count_as_no_time() {
        let mut c = ClockDriver::new(Speed::X1, false);
        c.frame(500.0);
        assert_eq!(c.frame(400.0), 0);
        assert_eq!(c.frame(f64::NAN), 0);
        assert_eq!(c.frame(450.0), 0);
        assert_eq!(c.frame(460.0), 10);
    }

    proptest! {
        /// Over many small frames nothing is lost to rounding: the total equals real time ×
        /// speed (no frame being longer than the cap).
        #[test]
        fn fractional_frames_add_up(steps in proptest::collection::vec(0.0f64..50.0, 1..200)) {
            let mut c = ClockDriver::new(Speed::X1, false);
            let mut t = 0.0;
            c.frame(t);
            let mut total = 0u64;
            for s in &steps {
                t += s;
                total += c.frame(t);
            }
            prop_assert!((total as f64 - t.floor()).abs() <= 1.0, "{total} vs {t}");
        }
    }
}
