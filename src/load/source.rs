//! Which local address each connection comes from. One source address
//! reaches one server address from at most the ephemeral port range's
//! ports (32768-60999 by default: 28,232), and well before they run out the
//! kernel's search for a free one slows every connect: it walks the ports
//! already taken towards that server. So a run of more connections than a
//! quarter of the range to a loopback server spreads them over several
//! loopback source addresses (127.0.0.1, 127.0.0.2, …: the whole 127.0.0.0/8
//! is this machine's). Measured (bench/RESULTS.md, 2026-11-25 20:02): 19,936
//! long-poll clients from one address cost the generator 9.8 s of system
//! time, and its connects fell so far behind that go-nethttp closed 2,984 of
//! them unread (its 10 s ReadHeaderTimeout); from three addresses 1.2 s, and
//! every client was answered on time. A socket is bound to its source before
//! it connects, with IP_BIND_ADDRESS_NO_PORT so that the kernel still picks
//! the port at connect time, per 4-tuple, instead of reserving one per bind.
//! Fewer connections keep the kernel's own choice.

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};

/// The share of the port range one source address is given: few enough in use that
/// the kernel finds a free port in a few probes.
const SHARE: f64 = 0.25;

/// The ephemeral ports the kernel hands out (`ip_local_port_range`), or Linux's default range.
pub fn ephemeral_ports() -> u64 {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").unwrap_or_default();
    let bounds: Vec<u64> = text.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    match bounds[..] {
        [low, high] if high >= low => high - low + 1,
        _ => 60999 - 32768 + 1,
    }
}

/// The source addresses of `connections` to `target` when `ports` ephemeral ports
/// are available per address: none (the kernel's choice) when one address holds
/// them all; else enough loopback addresses, from 127.0.0.1 up, for a loopback
/// target, and a warning for any other, which no loopback address reaches.
pub fn choose(target: SocketAddr, connections: usize, ports: u64) -> (Vec<IpAddr>, Option<String>) {
    let per_address = ((ports as f64 * SHARE) as usize).max(1);
    if connections <= per_address {
        return (Vec::new(), None);
    }
    let count = connections.div_ceil(per_address);
    match target.ip() {
        IpAddr::V4(ip) if ip.is_loopback() => {
            let addresses = (1..=count as u32).map(|k| IpAddr::V4(Ipv4Addr::from(u32::from(Ipv4Addr::new(127, 0, 0, 0)) + k))).collect();
            (addresses, None)
        }
        _ => (
            Vec::new(),
            Some(format!(
                "{connections} connections to {target} need {count} source addresses of {per_address} ports each, and only a loopback \
                 target (127.0.0.0/8) is reached from several here: connects past the local ports will fail (EADDRNOTAVAIL)"
            )),
        ),
    }
}

/// A non-blocking connect to `addr` from `source`, the port left to the kernel; the
/// connect completes later, as `mio::net::TcpStream::connect`'s does.
pub fn connect_from(source: IpAddr, addr: SocketAddr) -> io::Result<mio::net::TcpStream> {
    let (IpAddr::V4(from), SocketAddr::V4(to)) = (source, addr) else {
        return Err(io::Error::new(io::ErrorKind::Unsupported, "source addresses are IPv4 only"));
    };
    // SAFETY: plain syscall; the result is checked before use.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is a fresh descriptor we own; OwnedFd closes it on every error below.
    let socket = unsafe { OwnedFd::from_raw_fd(fd) };
    let on: libc::c_int = 1;
    // SAFETY: a valid descriptor and option value of the size passed. Without the option
    // (kernels before 4.2) bind reserves a port per socket: still correct, fewer ports.
    unsafe {
        libc::setsockopt(fd, libc::IPPROTO_IP, libc::IP_BIND_ADDRESS_NO_PORT, &on as *const _ as *const libc::c_void, size_of::<libc::c_int>() as _)
    };
    check(sockaddr_call(fd, SocketAddr::new(IpAddr::V4(from), 0), libc::bind))?;
    match check(sockaddr_call(fd, SocketAddr::V4(to), libc::connect)) {
        Err(e) if e.raw_os_error() != Some(libc::EINPROGRESS) => return Err(e),
        _ => {}
    }
    // SAFETY: the descriptor is a connecting TCP socket we own, handed over whole.
    Ok(mio::net::TcpStream::from_std(unsafe { std::net::TcpStream::from_raw_fd(socket.into_raw_fd()) }))
}

/// `bind` or `connect` of `fd` to an IPv4 `addr`.
fn sockaddr_call(fd: i32, addr: SocketAddr, call: unsafe extern "C" fn(i32, *const libc::sockaddr, libc::socklen_t) -> i32) -> i32 {
    let SocketAddr::V4(v4) = addr else { return -1 };
    let sin = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: v4.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*v4.ip()).to_be() },
        sin_zero: [0; 8],
    };
    // SAFETY: a valid descriptor and a sockaddr_in of the length passed.
    unsafe { call(fd, &sin as *const libc::sockaddr_in as *const libc::sockaddr, size_of::<libc::sockaddr_in>() as libc::socklen_t) }
}

fn check(r: i32) -> io::Result<()> {
    if r == 0 { Ok(()) } else { Err(io::Error::last_os_error()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().unwrap(), 8080)
    }

    #[test]
    fn connections_one_address_holds_keep_the_kernels_choice() {
        assert_eq!(choose(at("127.0.0.1"), 7_000, 28_232), (vec![], None));
        assert_eq!(choose(at("10.0.0.1"), 1_000, 28_232), (vec![], None));
    }

    #[test]
    fn more_connections_spread_over_loopback_addresses_from_127_0_0_1_up() {
        let (sources, warning) = choose(at("127.0.0.1"), 19_936, 28_232);
        let shown: Vec<String> = sources.iter().map(IpAddr::to_string).collect();
        assert_eq!(shown, ["127.0.0.1", "127.0.0.2", "127.0.0.3"], "7,058 ports each");
        assert_eq!(warning, None);
        assert_eq!(choose(at("127.0.0.1"), 100_000, 28_232).0.len(), 15);
        assert_eq!(choose(at("127.0.0.1"), 600, 100).0.len(), 24, "a narrow port range needs more");
    }

    #[test]
    fn a_target_off_loopback_cannot_be_spread_and_says_so() {
        let (sources, warning) = choose(at("10.0.0.1"), 100_000, 28_232);
        assert!(sources.is_empty());
        assert!(warning.unwrap().contains("need 15 source addresses"));
    }

    #[test]
    fn a_connection_from_another_loopback_address_arrives_from_it() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let source: IpAddr = "127.0.0.3".parse().unwrap();
        let _client = connect_from(source, listener.local_addr().unwrap()).unwrap();
        let (_, peer) = listener.accept().unwrap();
        assert_eq!(peer.ip(), source);
    }
}
