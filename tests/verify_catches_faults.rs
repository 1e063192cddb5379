//! The verifier's own tests: a server that follows the spec passes every
//! check, and each deliberate fault fails exactly the checks meant to catch it.

use crate::support;

use concur::verify::{self, Outcome, Settings, Status};
use support::refserver::{self, Fault};

const LONGPOLL_MS: u64 = 2000;
const PAGE_DELAY_MS: u64 = 600;

fn page() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/static/hello.html")).unwrap()
}

fn verify(faults: &[Fault], only: Option<&str>) -> Vec<Outcome> {
    let addr = refserver::start(faults, page(), LONGPOLL_MS, PAGE_DELAY_MS);
    let settings = Settings { page_delay_ms: PAGE_DELAY_MS, page_every: 10, longpoll_ms: LONGPOLL_MS, processes: 1, page_bytes: page(), pgid: None, db: None, faults: verify::FaultRoutes::Off };
    verify::run_checks(addr, settings, only, &Default::default(), || Ok(()), |_| {})
}

/// The checks of SPEC §9's fault routes, on a reference server started with them on.
fn verify_faults_on(faults: &[Fault]) -> Vec<Outcome> {
    let addr = refserver::start_faults_on(faults, page());
    let settings = Settings { page_delay_ms: PAGE_DELAY_MS, page_every: 10, longpoll_ms: LONGPOLL_MS, processes: 1, page_bytes: page(), pgid: None, db: None, faults: verify::FaultRoutes::Only };
    verify::run_checks(addr, settings, None, &Default::default(), || Ok(()), |_| {})
}

fn failed(outcomes: &[Outcome]) -> Vec<&'static str> {
    outcomes.iter().filter(|o| o.status == Status::Fail).map(|o| o.id).collect()
}

fn detail<'a>(outcomes: &'a [Outcome], id: &str) -> &'a str {
    &outcomes.iter().find(|o| o.id == id).unwrap().detail
}

#[test]
fn a_conforming_server_passes_every_check() {
    let began = std::time::Instant::now();
    let outcomes = verify(&[], None);
    let wall = began.elapsed().as_millis();
    assert!(outcomes.len() >= 25, "only {} checks ran", outcomes.len());
    let not_passed: Vec<_> = outcomes.iter().filter(|o| o.status != Status::Pass).collect();
    assert!(not_passed.is_empty(), "{not_passed:#?}");
    // longpoll ran alongside the checks before it, yet is reported at its place with its own time.
    let ids: Vec<&str> = outcomes.iter().map(|o| o.id).collect();
    // Every check but those of SPEC §8, which need a database (tests/verify_database.rs), and those
    // of §9's fault routes, which need a server started with them.
    let expected: Vec<&str> =
        verify::checks::all().iter().map(|c| c.id).filter(|id| !verify::checks::needs_database(id) && !verify::checks::needs_faults(id)).collect();
    assert_eq!(ids, expected);
    let longpoll = outcomes.iter().find(|o| o.id == "longpoll").unwrap();
    assert!(longpoll.millis >= u128::from(LONGPOLL_MS) - 50, "{longpoll:?}");
    let summed: u128 = outcomes.iter().map(|o| o.millis).sum();
    assert!(wall < summed, "the checks took {wall} ms of wall time, as long as their {summed} ms one after the other: longpoll did not overlap");
}

#[test]
fn missing_date_header_fails_only_headers() {
    let outcomes = verify(&[Fault::NoDate], None);
    assert_eq!(failed(&outcomes), ["headers"]);
    assert!(detail(&outcomes, "headers").contains("Date"), "{}", detail(&outcomes, "headers"));
}

#[test]
fn serialized_long_polls_fail_longpoll_concurrent() {
    let outcomes = verify(&[Fault::SerialLongPoll], Some("longpoll"));
    assert_eq!(failed(&outcomes), ["longpoll-concurrent"]);
    assert!(detail(&outcomes, "longpoll-concurrent").contains("serialized"));
}

#[test]
fn no_page_delay_fails_page_delay() {
    let outcomes = verify(&[Fault::NoPageDelay], Some("page"));
    assert_eq!(failed(&outcomes), ["page-delay"]);
}

#[test]
fn a_delay_that_blocks_others_fails_page_delay() {
    let outcomes = verify(&[Fault::BlockingPageDelay], Some("page-delay"));
    assert_eq!(failed(&outcomes), ["page-delay"]);
    assert!(detail(&outcomes, "page-delay").contains("blocks other requests"), "{}", detail(&outcomes, "page-delay"));
}

#[test]
fn a_store_per_connection_fails_the_state_checks() {
    let outcomes = verify(&[Fault::StorePerConnection], Some("-"));
    let f = failed(&outcomes);
    for id in ["read-your-writes", "shared-store"] {
        assert!(f.contains(&id), "{id} did not fail: {f:?}");
    }
}

#[test]
fn accepting_any_user_name_fails_bad_user() {
    let outcomes = verify(&[Fault::NoUserValidation], Some("bad-user"));
    assert_eq!(failed(&outcomes), ["bad-user"]);
}

#[test]
fn no_dummy_hash_fails_password_timing() {
    let outcomes = verify(&[Fault::NoDummyHash], Some("password"));
    assert_eq!(failed(&outcomes), ["password-timing"]);
}

#[test]
fn dying_after_garbage_fails_malformed_request() {
    let outcomes = verify(&[Fault::DiesOnGarbage], Some("malformed"));
    assert_eq!(failed(&outcomes), ["malformed-request"]);
    assert!(detail(&outcomes, "malformed-request").contains("stopped serving"), "{}", detail(&outcomes, "malformed-request"));
}

#[test]
fn ignoring_connection_close_fails_close_checks() {
    let outcomes = verify(&[Fault::NeverCloses], Some("connection-close,http10,keep-alive"));
    let f = failed(&outcomes);
    assert_eq!(f, ["connection-close", "http10"]);
}

#[test]
fn accepting_oversized_bodies_fails_too_large() {
    let outcomes = verify(&[Fault::NoBodyLimit], Some("too-large"));
    assert_eq!(failed(&outcomes), ["too-large"]);
    assert!(detail(&outcomes, "too-large").contains("want 413"), "{}", detail(&outcomes, "too-large"));
}

#[test]
fn decoding_bodies_lossily_fails_not_utf8() {
    let outcomes = verify(&[Fault::LossyUtf8], Some("not-utf8"));
    assert_eq!(failed(&outcomes), ["not-utf8"]);
    assert!(detail(&outcomes, "not-utf8").contains("not UTF-8"), "{}", detail(&outcomes, "not-utf8"));
}

#[test]
fn answering_in_the_requests_unknown_version_fails_unknown_version() {
    let outcomes = verify(&[Fault::EchoesVersion], Some("unknown-version,keep-alive,http10"));
    assert_eq!(failed(&outcomes), ["unknown-version"]);
    assert!(detail(&outcomes, "unknown-version").contains("\"HTTP/9.9 200 OK\""), "{}", detail(&outcomes, "unknown-version"));
}

#[test]
fn a_400_in_http11_to_an_unknown_version_passes_unknown_version() {
    // The conforming refserver refuses any request line that is not HTTP/1.x with `HTTP/1.1 400`.
    let outcomes = verify(&[], Some("unknown-version"));
    assert_eq!(outcomes.iter().map(|o| (o.id, o.status)).collect::<Vec<_>>(), [("unknown-version", Status::Pass)]);
}

#[test]
fn a_server_with_the_fault_routes_on_passes_their_checks_alone() {
    let outcomes = verify_faults_on(&[]);
    assert_eq!(outcomes.iter().map(|o| (o.id, o.status)).collect::<Vec<_>>(), [("fault-spin", Status::Pass), ("fault-panic", Status::Pass)], "{outcomes:#?}");
    // The spin's 200 ms, then three clamped spins of none.
    assert!(outcomes[0].millis >= 200, "{:?}", outcomes[0]);
}

#[test]
fn a_server_with_the_fault_routes_on_gets_every_other_check_first_and_not_fault_off() {
    // What `concur verify` does at its last core count: one server, the fault routes' checks last.
    let addr = refserver::start_faults_on(&[], page());
    let settings = Settings { page_delay_ms: PAGE_DELAY_MS, page_every: 10, longpoll_ms: LONGPOLL_MS, processes: 1, page_bytes: page(), pgid: None, db: None, faults: verify::FaultRoutes::On };
    let outcomes = verify::run_checks(addr, settings, Some("fault,root"), &Default::default(), || Ok(()), |_| {});
    let ran: Vec<_> = outcomes.iter().map(|o| (o.id, o.status)).collect();
    assert_eq!(ran, [("root", Status::Pass), ("fault-spin", Status::Pass), ("fault-panic", Status::Pass)], "{outcomes:#?}");
}

#[test]
fn fault_routes_without_the_switch_fail_fault_off() {
    let outcomes = verify(&[Fault::UnswitchedFaultRoutes], Some("fault"));
    assert_eq!(failed(&outcomes), ["fault-off"]);
    assert!(detail(&outcomes, "fault-off").contains("without CONCUR_FAULTS=1"), "{}", detail(&outcomes, "fault-off"));
}

#[test]
fn a_spin_that_answers_at_once_fails_fault_spin() {
    let outcomes = verify_faults_on(&[Fault::SpinsNot]);
    assert_eq!(failed(&outcomes), ["fault-spin"]);
    assert!(detail(&outcomes, "fault-spin").contains("compute for the whole 200 ms"), "{}", detail(&outcomes, "fault-spin"));
}

#[test]
fn a_panic_answered_as_a_success_fails_fault_panic() {
    let outcomes = verify_faults_on(&[Fault::PanicAnswered]);
    assert_eq!(failed(&outcomes), ["fault-panic"]);
}

#[test]
fn a_server_that_runs_on_but_serves_no_more_after_a_panic_fails_fault_panic() {
    let outcomes = verify_faults_on(&[Fault::PanicWedges]);
    assert_eq!(failed(&outcomes), ["fault-panic"]);
    assert!(detail(&outcomes, "fault-panic").contains("still runs but does not answer GET /"), "{}", detail(&outcomes, "fault-panic"));
}
