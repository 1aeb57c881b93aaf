//! The load generator's HTTP/1.1 client: one keep-alive connection, one exchange at a time,
//! and just what talking to a server on this machine needs (answers framed by
//! `Content-Length`, chunked, or the end of the connection).
//!
//! Why not reqwest: on this 2-core machine the load generator's CPU is taken from the server
//! under test. Against the same local server, reqwest spent ~110 µs of CPU per 24 KiB request
//! where a raw socket loop spends ~45 µs, nearly all of it the kernel's loopback TCP.

use std::io::{self, IoSlice};
use std::net::SocketAddr;

use tokio::net::{TcpSocket, TcpStream};

/// Read buffer growth step, in bytes: answers of the servers benchmarked are < 1 KiB.
const READ_CHUNK: usize = 4096;
/// Socket send buffer, in bytes: room for a whole request, so that one write hands it to the
/// kernel (Linux's default starts at 16 KiB, under the 24 KiB payload).
const SEND_BUFFER: u32 = 128 * 1024;
/// Largest answer accepted, in bytes, so that a runaway peer cannot exhaust memory.
const MAX_ANSWER: usize = 1 << 20;

/// A keep-alive HTTP/1.1 connection.
pub struct Connection {
    stream: TcpStream,
    buf: Vec<u8>,
    reusable: bool,
}

impl Connection {
    pub async fn open(addr: SocketAddr) -> io::Result<Self> {
        let socket = TcpSocket::new_v4()?;
        socket.set_send_buffer_size(SEND_BUFFER)?;
        let stream = socket.connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: Vec::with_capacity(READ_CHUNK),
            reusable: true,
        })
    }

    /// Whether another request may be sent: the last answer was whole and kept the connection.
    pub fn reusable(&self) -> bool {
        self.reusable
    }

    /// Sends `head` (request line and headers through the empty line) and `body`, reads the
    /// whole answer and returns its status code.
    pub async fn exchange(&mut self, head: &[u8], body: &[u8]) -> io::Result<u16> {
        self.reusable = false;
        self.write_all(head, body).await?;
        let status = self.read_answer().await?;
        Ok(status)
    }

    async fn write_all(&self, mut head: &[u8], mut body: &[u8]) -> io::Result<()> {
        while !head.is_empty() || !body.is_empty() {
            self.stream.writable().await?;
            match self
                .stream
                .try_write_vectored(&[IoSlice::new(head), IoSlice::new(body)])
            {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => {
                    let from_head = written.min(head.len());
                    head = &head[from_head..];
                    body = &body[written - from_head..];
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Appends what the peer sent next to `buf`; `false` at the end of the connection.
    async fn fill(&mut self) -> io::Result<bool> {
        if self.buf.len() > MAX_ANSWER {
            return Err(invalid("answer over 1 MiB"));
        }
        loop {
            self.stream.readable().await?;
            let len = self.buf.len();
            self.buf.resize(len + READ_CHUNK, 0);
            let read = self.stream.try_read(&mut self.buf[len..]);
            self.buf.truncate(len + *read.as_ref().unwrap_or(&0));
            match read {
                Ok(n) => return Ok(n > 0),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Like [`fill`](Self::fill), where the end of the connection cuts an answer short.
    async fn fill_or_fail(&mut self) -> io::Result<()> {
        if self.fill().await? {
            Ok(())
        } else {
            Err(io::ErrorKind::UnexpectedEof.into())
        }
    }

    async fn read_answer(&mut self) -> io::Result<u16> {
        self.buf.clear();
        let head_len = loop {
            if let Some(i) = find(&self.buf, b"\r\n\r\n") {
                break i + 4;
            }
            self.fill_or_fail().await?;
        };
        let head = parse_head(&self.buf[..head_len])?;
        match head.framing {
            Framing::Length(len) => {
                while self.buf.len() < head_len + len {
                    self.fill_or_fail().await?;
                }
                self.reusable = head.keep_alive;
            }
            Framing::Chunked => {
                self.skip_chunks(head_len).await?;
                self.reusable = head.keep_alive;
            }
            Framing::UntilClose => while self.fill().await? {},
        }
        Ok(head.status)
    }

    /// Reads a chunked body that starts at `at` in `buf`, through its trailers.
    async fn skip_chunks(&mut self, mut at: usize) -> io::Result<()> {
        loop {
            let line_end = loop {
                if let Some(i) = find(&self.buf[at..], b"\r\n") {
                    break at + i;
                }
                self.fill_or_fail().await?;
            };
            let size = String::from_utf8_lossy(&self.buf[at..line_end]);
            let size = size.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16).map_err(|_| invalid("bad chunk size"))?;
            at = line_end + 2;
            if size == 0 {
                // Trailer lines, if any, then an empty line.
                loop {
                    match find(&self.buf[at..], b"\r\n") {
                        Some(0) => return Ok(()),
                        Some(i) => at += i + 2,
                        None => self.fill_or_fail().await?,
                    }
                }
            }
            at = at
                .checked_add(size + 2)
                .ok_or_else(|| invalid("bad chunk size"))?;
            if at > MAX_ANSWER {
                return Err(invalid("answer over 1 MiB"));
            }
            while self.buf.len() < at {
                self.fill_or_fail().await?;
            }
        }
    }
}

/// Sends `GET path` on a fresh connection and returns the answer's status.
pub async fn get(addr: SocketAddr, path: &str) -> io::Result<u16> {
    let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    Connection::open(addr)
        .await?
        .exchange(head.as_bytes(), b"")
        .await
}

#[derive(Debug, PartialEq)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

#[derive(Debug, PartialEq)]
struct Head {
    status: u16,
    framing: Framing,
    keep_alive: bool,
}

fn parse_head(head: &[u8]) -> io::Result<Head> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let mut status_line = lines.next().unwrap_or_default().splitn(3, ' ');
    let version = status_line.next().unwrap_or_default();
    if !version.starts_with("HTTP/1.") {
        return Err(invalid("not an HTTP/1 answer"));
    }
    let status: u16 = status_line
        .next()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("bad status line"))?;
    let mut keep_alive = version == "HTTP/1.1";
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse().map_err(|_| invalid("bad Content-Length"))?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.to_ascii_lowercase().contains("chunked");
        } else if name.eq_ignore_ascii_case("connection") {
            if value.eq_ignore_ascii_case("close") {
                keep_alive = false;
            } else if value.eq_ignore_ascii_case("keep-alive") {
                keep_alive = true;
            }
        }
    }
    // RFC 9112 §6.3: no body on 1xx, 204, 304; chunked wins over Content-Length.
    let framing = if (100..200).contains(&status) || status == 204 || status == 304 {
        Framing::Length(0)
    } else if chunked {
        Framing::Chunked
    } else if let Some(len) = length {
        Framing::Length(len)
    } else {
        Framing::UntilClose
    };
    Ok(Head {
        status,
        framing,
        keep_alive,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn heads_are_framed_as_rfc_9112_says() {
        let head = |s: &str| parse_head(s.as_bytes()).expect("head");
        assert_eq!(
            head("HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n"),
            Head {
                status: 202,
                framing: Framing::Length(0),
                keep_alive: true
            }
        );
        assert_eq!(
            head(
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            ),
            Head {
                status: 200,
                framing: Framing::Chunked,
                keep_alive: false
            }
        );
        assert_eq!(
            head("HTTP/1.0 401 Unauthorized\r\n\r\n"),
            Head {
                status: 401,
                framing: Framing::UntilClose,
                keep_alive: false
            }
        );
        assert!(parse_head(b"SSH-2.0-OpenSSH\r\n\r\n").is_err());
    }

    /// A server that answers each request, in turn, with one of `answers`, read up to the
    /// request's `Content-Length`.
    fn canned_server(answers: Vec<&'static str>) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().expect("accept");
            for answer in answers {
                let mut seen = Vec::new();
                let mut byte = [0u8; 1];
                while !seen.ends_with(b"\r\n\r\n") && socket.read(&mut byte).expect("read") == 1 {
                    seen.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&seen).to_ascii_lowercase();
                let len: usize = head
                    .split("content-length: ")
                    .nth(1)
                    .and_then(|s| s.split("\r\n").next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                socket.read_exact(&mut vec![0; len]).expect("body");
                socket.write_all(answer.as_bytes()).expect("write");
            }
        });
        addr
    }

    #[tokio::test(flavor = "current_thread")]
    async fn reads_every_framing_on_one_connection() {
        let addr = canned_server(vec![
            "HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok",
            "HTTP/1.1 401 Unauthorized\r\ntransfer-encoding: chunked\r\n\r\n3\r\nbad\r\n4;x=y\r\n sig\r\n0\r\nx-trailer: 1\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\nmissing header",
        ]);
        let mut conn = Connection::open(addr).await.expect("connect");
        let head = b"POST /webhook HTTP/1.1\r\nContent-Length: 5\r\n\r\n";
        assert_eq!(conn.exchange(head, b"hello").await.expect("first"), 202);
        assert!(conn.reusable());
        assert_eq!(conn.exchange(head, b"hello").await.expect("second"), 401);
        assert!(conn.reusable());
        assert_eq!(conn.exchange(head, b"hello").await.expect("third"), 400);
        assert!(!conn.reusable());
    }
}
