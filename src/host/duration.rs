//! Durations as people type them, in flags and in scenario files alike.

use std::time::Duration;

/// `10s`, `250ms`, `1.5s`, `2m`, `1h`, `100us`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("invalid duration '{text}': expected a number with a unit, e.g. 10s, 500ms, 2m"))?;
    let seconds = match unit.trim() {
        "" | "s" | "sec" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("invalid duration '{text}': unknown unit '{other}' (use us, ms, s, m or h)")),
    };
    if !seconds.is_finite() || seconds > 1e9 {
        return Err(format!("invalid duration '{text}': too large"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The same, as a number of seconds (clap's parser for `run` and `micro`'s duration flags).
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    parse_duration(text).map(|d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_units_people_type() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("ten").unwrap_err().contains("'ten'"));
        assert!(parse_duration("3d").unwrap_err().contains("unknown unit 'd'"));
    }
}
