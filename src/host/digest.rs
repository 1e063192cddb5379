//! Small deterministic hashes and sequences that results depend on: a plan's
//! key must be the same after a compiler upgrade (std's hasher may change
//! between releases) and generated passwords and resamples the same on every
//! machine, so these are written out rather than taken from std or a crate.

/// FNV-1a, 64 bits: a stable digest of a text (a plan's JSON).
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// SplitMix64's output function of one state: a pure function of `x`, so
/// that a value (a user's password) depends on its index alone.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64 as a generator: a tiny reproducible sequence (for resampling).
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let out = splitmix64(self.0);
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_its_reference_values() {
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn the_generator_steps_the_output_function() {
        let mut g = SplitMix(7);
        assert_eq!((g.next(), g.next()), (splitmix64(7), splitmix64(7u64.wrapping_add(0x9e37_79b9_7f4a_7c15))));
    }
}
