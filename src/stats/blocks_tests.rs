use super::*;

fn row(name: &str, values: &[f64]) -> Row {
    Row { name: name.into(), values: values.iter().map(|&v| Some(v)).collect(), counts: vec![], lower_bound: false }
}

/// A small deterministic generator (xorshift64*) and normal deviates from it (Box–Muller).
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        (-2.0 * self.uniform().ln()).sqrt() * (2.0 * std::f64::consts::PI * self.uniform()).cos()
    }
}

/// `levels.len()` rows over `blocks` blocks: each value its level × the block's drift × its own
/// lognormal scatter of `sigma`.
fn simulated(noise: &mut Noise, levels: &[f64], blocks: usize, sigma: f64, drift: f64) -> Vec<Row> {
    let shifts: Vec<f64> = (0..blocks).map(|_| drift * noise.normal()).collect();
    levels.iter().enumerate().map(|(i, &l)| row(&format!("r{i}"), &shifts.iter().map(|s| l * (s + sigma * noise.normal()).exp()).collect::<Vec<_>>())).collect()
}

#[test]
fn the_special_functions_match_known_values() {
    assert!((digamma(1.0) + 0.577_215_664_9).abs() < 1e-9, "{}", digamma(1.0));
    assert!((digamma(0.5) + 1.963_510_026_0).abs() < 1e-9);
    assert!((trigamma(1.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-9, "{}", trigamma(1.0));
    assert!((trigamma(0.5) - std::f64::consts::PI.powi(2) / 2.0).abs() < 1e-9);
    for x in [0.3, 1.0, 3.7, 40.0] {
        assert!((trigamma_inverse(trigamma(x)) - x).abs() < 1e-6 * x, "x {x}: {}", trigamma_inverse(trigamma(x)));
    }
}

#[test]
fn an_exact_tie_is_the_same_and_never_ordered() {
    let rows = [row("a", &[1000.0, 980.0, 1010.0]), row("b", &[1000.0, 980.0, 1010.0]), row("c", &[500.0, 491.0, 504.0])];
    let d = fit(&rows).unwrap();
    assert_eq!(d.difference("a", "b").unwrap().log_ratio, 0.0);
    assert_eq!(d.decide("a", "b", 0.05), Decision::Same);
    assert_eq!(d.decide("a", "b", 0.0), Decision::CannotTell, "no tolerance, no equivalence");
    assert_eq!(d.decide("a", "c", 0.05), Decision::Above);
}

#[test]
fn a_constant_timer_bound_figure_is_decided_at_its_resolution() {
    // The page scenario: 490.0 req/s in every window of every implementation (980 completions in 2 s).
    let page = |name: &str, v: f64| Row { counts: vec![(v * 2.0) as u64; 3], ..row(name, &[v, v, v]) };
    let rows = [page("go", 490.0), page("node", 490.0), page("ruby", 490.0), page("slow", 245.0)];
    let d = fit(&rows).unwrap();
    assert!(d.variance("go").unwrap() > 0.0, "held to its resolution, not to zero");
    assert_eq!(d.decide("go", "node", 0.05), Decision::Same);
    assert_eq!(d.decide("go", "slow", 0.05), Decision::Above);
    let level = d.level("go").unwrap();
    assert!(level.2 / level.1 < 1.01, "{level:?}");
}

#[test]
fn a_difference_of_a_third_with_small_scatter_is_ordered() {
    let mut noise = Noise(7);
    let mut levels = vec![1000.0; 16];
    levels.extend([1300.0, 1000.0]);
    for _ in 0..20 {
        let rows = simulated(&mut noise, &levels, 3, 0.02, 0.0);
        let d = fit(&rows).unwrap();
        assert_eq!(d.decide("r16", "r17", 0.0), Decision::Above, "{:?}", d.difference("r16", "r17"));
    }
}

#[test]
fn drift_that_moves_every_row_alike_drops_out_of_their_differences() {
    // Blocks 30% apart (the machine's drift between rounds), rows 10% apart, each row's own scatter 1%.
    let drift = [1.0, 0.7, 1.3];
    let a: Vec<f64> = drift.iter().zip([1.0, 1.01, 0.99]).map(|(d, e)| 110.0 * d * e).collect();
    let b: Vec<f64> = drift.iter().zip([0.99, 1.0, 1.01]).map(|(d, e)| 100.0 * d * e).collect();
    let c: Vec<f64> = drift.iter().zip([1.01, 0.99, 1.0]).map(|(d, e)| 50.0 * d * e).collect();
    let d = fit(&[row("a", &a), row("b", &b), row("c", &c)]).unwrap();
    let ab = d.difference("a", "b").unwrap();
    assert!((ab.ratio() - 1.1).abs() < 0.02 && ab.hi() / ab.lo() < 1.15, "{ab:?}");
    assert_eq!(d.decide("a", "b", 0.0), Decision::Above);
    assert_eq!(ranks(&d), vec![(1, 1), (2, 2), (3, 3)]);
}

#[test]
fn a_row_that_scatters_more_keeps_a_wider_interval() {
    let mut noise = Noise(11);
    let mut rows = simulated(&mut noise, &[1000.0; 12], 5, 0.01, 0.05);
    rows.push(row("wild", &[1000.0, 1400.0, 700.0, 1200.0, 800.0]));
    let d = fit(&rows).unwrap();
    let (calm, wild) = (d.variance("r0").unwrap(), d.variance("wild").unwrap());
    assert!(wild > 20.0 * calm, "calm {calm}, wild {wild}, prior df {}", d.prior_df);
    assert_ne!(d.decide("wild", "r0", 0.0), Decision::Above);
}

#[test]
fn a_lower_bound_is_never_placed_below() {
    let mut saturated = row("gen-limited", &[800.0, 810.0, 790.0]);
    saturated.lower_bound = true;
    let rows = [row("fast", &[1000.0, 1010.0, 990.0]), saturated, row("slow", &[100.0, 101.0, 99.0])];
    let d = fit(&rows).unwrap();
    assert_eq!(d.decide("gen-limited", "fast", 0.0), Decision::CannotTell);
    assert_eq!(d.decide("fast", "gen-limited", 0.0), Decision::CannotTell);
    assert_eq!(d.decide("gen-limited", "slow", 0.0), Decision::Above);
    assert_eq!(ranks(&d), vec![(1, 2), (1, 2), (3, 3)]);
}

#[test]
fn one_block_or_one_row_estimates_nothing() {
    assert!(fit(&[row("a", &[1.0]), row("b", &[2.0])]).is_none());
    assert!(fit(&[row("a", &[1.0, 2.0])]).is_none());
    let missing = [row("a", &[1.0, 1.1, 1.2]), Row { values: vec![Some(2.0), None, Some(2.2)], ..row("b", &[]) }, row("c", &[3.0, 3.1, 3.3])];
    let d = fit(&missing).unwrap();
    assert_eq!(d.difference("a", "b").unwrap().blocks, 2);
}

/// Identical rows, noise and drift as on this machine: at 95% with the 2% threshold, the
/// pairs ordered wrongly stay well under 5% of all pairs.
#[test]
fn an_a_a_design_orders_at_most_one_pair_in_twenty() {
    let mut noise = Noise(2026);
    let (mut pairs, mut ordered) = (0, 0);
    for _ in 0..200 {
        let rows = simulated(&mut noise, &[1000.0; 18], 3, 0.05, 0.2);
        let d = fit(&rows).unwrap();
        for i in 0..18 {
            for j in i + 1..18 {
                pairs += 1;
                ordered += usize::from(matches!(d.decide(&rows[i].name, &rows[j].name, 0.0), Decision::Above | Decision::Below));
            }
        }
    }
    let rate = ordered as f64 / pairs as f64;
    assert!(rate <= 0.05, "{ordered} of {pairs} pairs ordered ({rate:.3})");
}

/// Twice as slow with 10% scatter per window and 3 blocks: found every time.
#[test]
fn a_server_twice_as_slow_is_always_found() {
    let mut noise = Noise(3);
    let mut levels = vec![1000.0; 17];
    levels.push(500.0);
    for _ in 0..100 {
        let rows = simulated(&mut noise, &levels, 3, 0.10, 0.3);
        let d = fit(&rows).unwrap();
        assert_eq!(d.decide("r0", "r17", 0.0), Decision::Above, "{:?}", d.difference("r0", "r17"));
    }
}

/// Eighteen rows of which three scatter 10-15 times more than the rest (a server that stalls now
/// and then), one of the others 15% faster: weighed down in the blocks' effects, the scattered
/// rows neither order the identical ones falsely (least squares ordered 6.1% of those pairs) nor
/// hide the 15% (least squares found it in 84% of designs, this fit in 96%).
#[test]
fn rows_that_scatter_widely_keep_their_scatter_to_themselves() {
    let mut noise = Noise(77);
    let (mut pairs, mut ordered, mut found, mut tried) = (0, 0, 0, 0);
    for _ in 0..300 {
        let shifts: Vec<f64> = (0..3).map(|_| 0.2 * noise.normal()).collect();
        let sigma = |i: usize| if i.is_multiple_of(6) { 0.3 } else { 0.02 + 0.01 * (i % 3) as f64 };
        let level = |i: usize| if i == 1 { 1150.0 } else { 1000.0 };
        let rows: Vec<Row> =
            (0..18).map(|i| row(&format!("r{i}"), &shifts.iter().map(|s| level(i) * (s + sigma(i) * noise.normal()).exp()).collect::<Vec<_>>())).collect();
        let d = fit(&rows).unwrap();
        for i in (0..18).filter(|&i| i != 1) {
            for j in (i + 1..18).filter(|&j| j != 1) {
                pairs += 1;
                ordered += usize::from(matches!(d.decide(&rows[i].name, &rows[j].name, 0.0), Decision::Above | Decision::Below));
            }
        }
        for j in ["r2", "r3", "r4"] {
            tried += 1;
            found += usize::from(d.decide("r1", j, 0.0) == Decision::Above);
        }
    }
    let (rate, power) = (ordered as f64 / pairs as f64, found as f64 / tried as f64);
    assert!(rate <= 0.05, "{ordered} of {pairs} identical pairs ordered ({rate:.3})");
    assert!(power >= 0.9, "the 15% found in {found} of {tried} ({power:.3})");
}
