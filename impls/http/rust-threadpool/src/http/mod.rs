//! HTTP/1.1 on a blocking `TcpStream`, one connection per thread: the book's
//! `handle_connection` grown to RFC 9112. `httparse` reads the request head;
//! bodies (Content-Length, chunked, `Expect: 100-continue`), keep-alive,
//! pipelining and HTTP/1.0 are this module's own code, because the book's
//! server has none of them and the standard library has no HTTP.

mod body;
mod conn;
mod request;
mod response;

pub use body::{Body, BodyError};
pub use conn::{IDLE_TIMEOUT, serve_connection};
pub use request::{Framing, Request};
pub use response::Response;
