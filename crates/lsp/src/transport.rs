//! JSON-RPC over a byte stream with the protocol's `Content-Length`
//! framing, as a [`Connection`] of messages. Unlike `lsp-server`'s own
//! stdio transport, a malformed message does not end the connection: the
//! client gets a protocol error (`ParseError` for a body that is not JSON,
//! `InvalidRequest` for JSON that is no message, each with the request's
//! id when it can be read), and reading goes on with the next message.

use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, never, select, unbounded};
use lsp_server::{Connection, ErrorCode, Message};
use serde_json::{Value, json};

/// Bodies larger than this are refused (and skipped) rather than read
/// into memory.
const MAX_BODY_BYTES: usize = 256 << 20;

/// The method of a notification the server sends its own transport: the
/// notification's `params`, a string, is a whole message's JSON text,
/// written as it is. A server that knows its connection is this
/// transport's sends large results that way, encoded once.
pub const RAW_MESSAGE: &str = "$/refscope/rawMessage";

/// The threads moving messages between the stream and the connection.
pub struct IoThreads {
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits until every message sent on the connection is written (the
    /// server has dropped its end). The reader is not waited for: it may
    /// be blocked reading input the client never closes.
    pub fn join(self) -> io::Result<()> {
        self.writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")))
    }
}

/// A connection over standard input and output.
pub fn stdio() -> (Connection, IoThreads) {
    over(io::BufReader::new(io::stdin()), io::stdout())
}

/// A connection over any reader and writer (a test's pipes).
pub fn over<R, W>(reader: R, writer: W) -> (Connection, IoThreads)
where
    R: BufRead + Send + 'static,
    W: Write + Send + 'static,
{
    let (to_server, from_client) = unbounded::<Message>();
    let (to_client, outgoing) = unbounded::<Message>();
    let (to_client_raw, outgoing_raw) = unbounded::<String>();
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_messages(reader, &to_server, &to_client_raw))
        .expect("a thread can be started");
    let writer = std::thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || write_messages(writer, &outgoing, outgoing_raw))
        .expect("a thread can be started");
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    (connection, IoThreads { writer })
}

/// A frame read from the stream.
enum Frame {
    /// A message's body.
    Body(Vec<u8>),
    /// Headers that name no usable body, with why.
    Malformed(String),
}

/// Reads messages until the input ends, the server goes away or `exit`
/// arrives; malformed ones are answered on `errors`.
fn read_messages(
    mut reader: impl BufRead,
    to_server: &Sender<Message>,
    errors: &Sender<String>,
) -> io::Result<()> {
    loop {
        let frame = match read_frame(&mut reader)? {
            None => return Ok(()),
            Some(frame) => frame,
        };
        let decoded = match frame {
            Frame::Body(body) => decode(&body),
            Frame::Malformed(why) => Err(error_response(Value::Null, ErrorCode::ParseError, &why)),
        };
        match decoded {
            Ok(message) => {
                let is_exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if to_server.send(message).is_err() || is_exit {
                    return Ok(());
                }
            }
            Err(response) => {
                tracing::warn!("malformed message from the client: {response}");
                let _ = errors.send(response);
            }
        }
    }
}

/// Reads one frame: headers up to an empty line, then `Content-Length`
/// bytes. `None` at the end of the input.
fn read_frame(reader: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = String::new();
    let mut n_headers = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if n_headers == 0 {
                // Blank lines between messages are tolerated.
                continue;
            }
            break;
        }
        n_headers += 1;
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("Content-Length is not a number: {:?}", value.trim())),
            );
        }
    }
    let length = match length {
        None => return Ok(Some(Frame::Malformed("no Content-Length header".into()))),
        Some(Err(why)) => return Ok(Some(Frame::Malformed(why))),
        Some(Ok(length)) => length,
    };
    if length > MAX_BODY_BYTES {
        io::copy(
            &mut io::Read::take(&mut *reader, length as u64),
            &mut io::sink(),
        )?;
        return Ok(Some(Frame::Malformed(format!(
            "a body of {length} bytes is larger than {MAX_BODY_BYTES}"
        ))));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Frame::Body(body)))
}

/// A message from a body, or the error response (JSON text) that answers
/// it.
fn decode(body: &[u8]) -> Result<Message, String> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        error_response(
            Value::Null,
            ErrorCode::ParseError,
            &format!("the message is not JSON: {e}"),
        )
    })?;
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    if !value.is_object() {
        return Err(error_response(
            id,
            ErrorCode::InvalidRequest,
            "a message is a JSON object (batches are not part of the protocol)",
        ));
    }
    serde_json::from_value::<Message>(value).map_err(|e| {
        error_response(
            id,
            ErrorCode::InvalidRequest,
            &format!("not a request, response or notification: {e}"),
        )
    })
}

/// An error response as JSON text.
fn error_response(id: Value, code: ErrorCode, message: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code as i32, "message": message },
    })
    .to_string()
}

/// Writes messages until the server drops its end of the connection.
fn write_messages(
    mut writer: impl Write,
    messages: &Receiver<Message>,
    mut errors: Receiver<String>,
) -> io::Result<()> {
    loop {
        select! {
            recv(messages) -> message => match message {
                Ok(Message::Notification(raw)) if raw.method == RAW_MESSAGE => {
                    write_text(&mut writer, raw.params.as_str().unwrap_or("{}"))?;
                }
                Ok(message) => message.write(&mut writer)?,
                Err(_) => return Ok(()),
            },
            recv(errors) -> text => match text {
                Ok(text) => write_text(&mut writer, &text)?,
                Err(_) => errors = never(),
            },
        }
    }
}

/// Writes one message's JSON text with its header.
fn write_text(writer: &mut impl Write, text: &str) -> io::Result<()> {
    write!(writer, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn malformed_messages_are_answered_and_reading_goes_on() {
        let input = [
            frame("{not json"),
            frame("[1, 2]"),
            frame(r#"{"jsonrpc": "2.0", "id": 7}"#),
            "X-Other: 1\r\n\r\n".to_string(),
            "Content-Length: many\r\n\r\n".to_string(),
            frame(r#"{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}"#),
        ]
        .concat();
        let (to_server, from_client) = unbounded();
        let (errors, answered) = unbounded();
        read_messages(input.as_bytes(), &to_server, &errors).unwrap();
        let answered: Vec<Value> = answered
            .try_iter()
            .map(|text| serde_json::from_str(&text).unwrap())
            .collect();
        let codes: Vec<(Value, i64)> = answered
            .iter()
            .map(|a| (a["id"].clone(), a["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            codes,
            vec![
                (Value::Null, -32700),
                (Value::Null, -32600),
                (json!(7), -32600),
                (Value::Null, -32700),
                (Value::Null, -32700),
            ]
        );
        let message = from_client.try_recv().unwrap();
        assert!(matches!(message, Message::Request(r) if r.method == "shutdown"));
    }
}
