//! Ports for servers that a test starts as a separate process.

use std::net::TcpListener;
use std::sync::atomic::{AtomicU32, Ordering};

/// Handed-out ports lie in `FIRST..END`, below Linux's ephemeral range (32768 and up).
const FIRST: u32 = 20_000;
const END: u32 = 32_000;

/// A port that nothing listens on, for a server process to bind.
///
/// It lies below the ephemeral range, so no port-0 bind and no outgoing connection of a
/// parallel case takes it meanwhile. Polling it until the server listens cannot connect a
/// socket to itself either: a TCP self-connect is possible only on a port the kernel hands out
/// to clients, and it would make the server's bind fail while the poll seemed to succeed.
pub fn spare_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let span = END - FIRST;
    let start = std::process::id() % span;
    for _ in 0..span {
        let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed)) % span;
        let port = u16::try_from(FIRST + offset).expect("ports below 32000 fit");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {FIRST}..{END}");
}
