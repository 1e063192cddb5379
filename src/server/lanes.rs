//! Which builds may run at the same time. Implementations whose manifests
//! require a common command share what that tool keeps between runs (Maven's
//! local repository, which is not safe for concurrent writers; cargo's and
//! npm's caches) and sometimes a folder (java-jetty-vthreads builds
//! java-jetty's), so they build in one lane, one after the other; so do those
//! linked through a third. Lanes run in parallel.

use std::collections::HashMap;

/// Commands whose builds compile every dependency from source: a lane that
/// requires one takes longest, whatever its size. On this 2-core machine the
/// cargo lane (rust-axum, rust-threadpool, micro/rust-tokio, each with
/// whole-program LTO) took 302 s of builds against the seven-member Maven
/// lane's 200 s; started after the larger lanes, it ended two minutes after
/// every other (bench/RESULTS.md, 2026-11-29).
const COMPILES_DEPENDENCIES: &[&str] = &["cargo"];

/// Splits implementations into lanes, given each one's required commands:
/// two share a lane when they share a command, directly or through others
/// (connected components). A lane lists its members' indices in increasing
/// order; the longest lane should start first: lanes that compile their
/// dependencies (`COMPILES_DEPENDENCIES`) come first, then the largest,
/// ties in the order of their first members.
pub fn lanes<S: AsRef<str>>(requires: &[&[S]]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..requires.len()).collect();
    let mut first_with: HashMap<&str, usize> = HashMap::new();
    for (i, commands) in requires.iter().enumerate() {
        for command in commands.iter() {
            let other = *first_with.entry(command.as_ref()).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, other));
            // The smaller index becomes the root: a component's root is its first member.
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut lanes: Vec<Vec<usize>> = Vec::new();
    let mut lane_of_root: HashMap<usize, usize> = HashMap::new();
    for i in 0..requires.len() {
        let r = root(&mut parent, i);
        let lane = *lane_of_root.entry(r).or_insert_with(|| {
            lanes.push(Vec::new());
            lanes.len() - 1
        });
        lanes[lane].push(i);
    }
    let compiles = |lane: &Vec<usize>| lane.iter().any(|&i| requires[i].iter().any(|c| COMPILES_DEPENDENCIES.contains(&c.as_ref())));
    lanes.sort_by_key(|lane| (std::cmp::Reverse(compiles(lane)), std::cmp::Reverse(lane.len())));
    lanes
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

#[cfg(test)]
mod tests {
    use super::lanes;

    #[test]
    fn a_shared_command_puts_two_in_one_lane() {
        let requires: &[&[&str]] = &[&["go"], &["mvn", "java"], &["go"], &["python3"]];
        assert_eq!(lanes(requires), [vec![0, 2], vec![1], vec![3]]);
    }

    #[test]
    fn lanes_join_through_a_third_implementation() {
        // elixir (http) needs make and cc, c-pthreads make, erlang erl: one lane.
        let requires: &[&[&str]] = &[&["erl", "erlc"], &["make", "cc"], &["elixir", "mix", "erl", "cc", "make"], &["python3"]];
        assert_eq!(lanes(requires), [vec![0, 1, 2], vec![3]]);
    }

    #[test]
    fn a_lane_that_compiles_its_dependencies_comes_first_then_the_largest_ties_in_order() {
        let requires: &[&[&str]] = &[&["npm"], &["cargo"], &["mvn"], &["cargo", "rustc"], &["mvn"], &["mvn"], &["sh"], &["go"], &["go"]];
        assert_eq!(lanes(requires), [vec![1, 3], vec![2, 4, 5], vec![7, 8], vec![0], vec![6]]);
    }

    #[test]
    fn no_required_command_is_a_lane_of_its_own() {
        let requires: &[&[&str]] = &[&[], &[], &["go"]];
        assert_eq!(lanes(requires), [vec![0], vec![1], vec![2]]);
        assert!(lanes::<&str>(&[]).is_empty());
    }
}
