//! The Summary view: `llvm-profdata show --detailed-summary`'s numbers and the
//! cutoff curve, asked for once, when the tab is first shown.

use std::rc::Rc;

use pgolens_protocol::{DocId, ProfileSummary, Reply, Request};

use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod summary_view;

/// Round axis ticks from 0 to `max`: steps of 1, 2 or 5 times a power of ten, about
/// `count` of them, the last at or below `max`.
pub fn ticks(max: u64, count: u64) -> Vec<u64> {
    let raw = max.max(1).div_ceil(count.max(1));
    let mut power = 1u64;
    while power.saturating_mul(10) <= raw {
        power = power.saturating_mul(10);
    }
    let step = [1, 2, 5, 10].into_iter().map(|m| power.saturating_mul(m)).find(|&s| s >= raw).unwrap_or(raw);
    (0..).map_while(|i: u64| i.checked_mul(step)).take_while(|&t| t <= max).take(64).collect()
}

/// The powers of ten from 1 to `max` (a log axis' ticks).
pub fn decades(max: u64) -> Vec<u64> {
    std::iter::successors(Some(1u64), |&p| p.checked_mul(10)).take_while(|&p| p <= max.max(1)).collect()
}

/// `1234567` → `1.2M`: a tick label.
pub fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{}k", n / 1000),
        1_000_000..=999_999_999 => format!("{}M", n / 1_000_000),
        _ => format!("{}G", n / 1_000_000_000),
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SummaryState {
    /// The summary and, for context-sensitive profiles, the CS records' one.
    pub data: Option<Rc<(ProfileSummary, Option<ProfileSummary>)>>,
    pub asked: bool,
}

impl SummaryState {
    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        if !self.asked {
            out.send(doc, Request::Summary);
            self.asked = true;
        }
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Summary { summary, cs_summary } => {
                self.data = Some(Rc::new((summary, cs_summary)));
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ticks_are_round_and_stay_inside_the_axis() {
        assert_eq!(ticks(100, 5), [0, 20, 40, 60, 80, 100]);
        assert_eq!(ticks(4571, 5), [0, 1000, 2000, 3000, 4000]);
        assert_eq!(ticks(7, 5), [0, 2, 4, 6]);
        assert_eq!(ticks(0, 5), [0]);
        assert_eq!(ticks(u64::MAX, 5).len(), 4);
        assert_eq!(decades(12_345), [1, 10, 100, 1000, 10_000]);
        assert_eq!(decades(0), [1]);
        assert_eq!(
            (short(950), short(45_000), short(3_200_000), short(7_000_000_000)),
            ("950".into(), "45k".into(), "3M".into(), "7G".into())
        );
    }
}
