//! Many tests at once. A claim about several pairs (every A against every
//! B, at every core count) fails when any one pair refutes it; tested at 5%
//! each, one of twenty true pairs would refute it by chance. Holm's
//! step-down procedure (Holm, "A simple sequentially rejective multiple test
//! procedure", 1979) keeps the chance of any false refutation at the level
//! asked, and rejects at least what Bonferroni's would. A claim that holds
//! only when every pair holds needs no correction: each pair must pass its
//! own test (an intersection-union test, Berger 1982).

/// Which of the hypotheses with p-values `p` Holm's procedure rejects at
/// family-wise level `alpha`: the smallest p against alpha/m, the next
/// against alpha/(m−1), …, stopping at the first that is not below its bound.
pub fn holm(p: &[f64], alpha: f64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut rejected = vec![false; p.len()];
    let m = p.len();
    for (k, &i) in order.iter().enumerate() {
        if p[i].is_nan() || p[i] > alpha / (m - k) as f64 {
            break;
        }
        rejected[i] = true;
    }
    rejected
}

#[cfg(test)]
mod tests {
    use super::holm;

    #[test]
    fn holm_steps_down_and_stops_at_the_first_it_keeps() {
        // m = 4 at 5%: bounds 0.0125, 0.0167, 0.025, 0.05 in p's order.
        assert_eq!(holm(&[0.04, 0.001, 0.015, 0.02], 0.05), [true, true, true, true]);
        assert_eq!(holm(&[0.04, 0.001, 0.017, 0.02], 0.05), [false, true, false, false], "0.017 > 0.05/3 stops it");
        assert_eq!(holm(&[0.03], 0.05), [true], "one test: its own level");
        assert_eq!(holm(&[0.03, 0.03], 0.05), [false, false]);
        assert!(holm(&[], 0.05).is_empty());
    }
}
