//! A scripted upstream and a client, both over real HTTP on loopback, for the proxy's
//! tests: the upstream writes exactly the bytes a script gives (so a test can cut a
//! stream anywhere, stall it, or drop the connection), and records what it received.

// The tests and the latency bench each use a part of these helpers.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{HeaderMap, Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolfix_proxy::{Config, Limits, Upstream};

/// One step of the upstream's answer.
#[derive(Clone, Debug)]
pub enum Step {
    /// Bytes written as they are.
    Raw(Vec<u8>),
    /// Bytes written as one chunk of a chunked body.
    Chunk(Vec<u8>),
    /// The end of a chunked body.
    End,
    /// A pause.
    Sleep(u64),
}

/// A request as the upstream received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub head: String,
    pub body: Vec<u8>,
}

/// The requests an upstream received.
pub type Log = Arc<Mutex<Vec<Received>>>;

/// Starts an upstream answering each request with `script(request head, body)`.
pub async fn upstream(script: fn(&str, &[u8]) -> Vec<Step>) -> (SocketAddr, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let log: Log = Arc::default();
    let received = Arc::clone(&log);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                continue;
            };
            let received = Arc::clone(&received);
            tokio::spawn(answer(tcp, script, received));
        }
    });
    (address, log)
}

async fn answer(mut tcp: TcpStream, script: fn(&str, &[u8]) -> Vec<Step>, log: Log) {
    let mut buf = Vec::new();
    let mut piece = [0u8; 8192];
    let head_end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        match tcp.read(&mut piece).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&piece[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match tcp.read(&mut piece).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&piece[..n]),
        }
    }
    let body = buf[head_end..head_end + length].to_vec();
    log.lock().unwrap().push(Received {
        head: head.clone(),
        body: body.clone(),
    });
    for step in script(&head, &body) {
        let written = match step {
            Step::Raw(bytes) => tcp.write_all(&bytes).await,
            Step::Chunk(bytes) => {
                let mut framed = format!("{:x}\r\n", bytes.len()).into_bytes();
                framed.extend_from_slice(&bytes);
                framed.extend_from_slice(b"\r\n");
                tcp.write_all(&framed).await
            }
            Step::End => tcp.write_all(b"0\r\n\r\n").await,
            Step::Sleep(ms) => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(())
            }
        };
        if written.is_err() {
            return;
        }
        let _ = tcp.flush().await;
    }
}

/// The head of a complete JSON response with `status` and `body`.
pub fn json_reply(status: u16, body: &str) -> Vec<Step> {
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nx-upstream: yes\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    vec![
        Step::Raw(head.into_bytes()),
        Step::Raw(body.as_bytes().to_vec()),
    ]
}

/// The head of a chunked event stream.
pub fn stream_head() -> Step {
    Step::Raw(
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n"
            .to_vec(),
    )
}

/// A non-streamed chat completion whose message has `content` and `tool_calls`.
pub fn completion(content: Option<&str>, tool_calls: Option<Json>) -> String {
    let mut message = json!({"role": "assistant", "content": content});
    if let Some(calls) = tool_calls {
        message["tool_calls"] = calls;
    }
    let finish = match message.get("tool_calls") {
        Some(_) => "tool_calls",
        None => "stop",
    };
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
    .to_string()
}

/// One streamed chunk event whose delta is `delta`.
pub fn chunk(delta: Json, finish: Option<&str>) -> Vec<u8> {
    let chunk = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    });
    format!("data: {chunk}\n\n").into_bytes()
}

/// A whole streamed reply writing `pieces` as content, one chunk each, then finishing.
pub fn streamed(pieces: &[&str]) -> Vec<Step> {
    let mut steps = vec![stream_head()];
    steps.push(Step::Chunk(chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    )));
    for piece in pieces {
        steps.push(Step::Chunk(chunk(json!({"content": piece}), None)));
    }
    steps.push(Step::Chunk(chunk(json!({}), Some("stop"))));
    steps.push(Step::Chunk(b"data: [DONE]\n\n".to_vec()));
    steps.push(Step::End);
    steps
}

/// Starts a proxy in front of `upstream` with `limits`, and returns its address.
pub async fn proxy_with(
    upstream: SocketAddr,
    limits: Limits,
    shadow: Option<PathBuf>,
) -> SocketAddr {
    let mut config = Config::new(Upstream::parse(&format!("http://{upstream}/v1")).unwrap());
    config.limits = limits;
    config.shadow = shadow;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(toolfix_proxy::serve(listener, config));
    address
}

/// Starts a proxy in front of `upstream`.
pub async fn proxy(upstream: SocketAddr) -> SocketAddr {
    proxy_with(upstream, Limits::default(), None).await
}

/// A reply as the client received it.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Json {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The data of each server-sent event of the body.
    pub fn events(&self) -> Vec<String> {
        String::from_utf8_lossy(&self.body)
            .split("\n\n")
            .filter_map(|event| event.strip_prefix("data: ").map(str::to_owned))
            .collect()
    }
}

/// Sends a request to `address` and reads the whole reply.
pub async fn send(address: SocketAddr, method: Method, path: &str, body: &[u8]) -> Reply {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let request = Request::builder()
        .method(method)
        .uri(format!("http://{address}{path}"))
        .header("content-type", "application/json")
        .header("x-client", "yes")
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// A chat-completions request offering `get_weather` (unless `tools` is false).
pub fn chat(model: &str, stream: bool, tools: bool) -> Vec<u8> {
    let mut body = json!({
        "model": model,
        "stream": stream,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
    });
    if tools {
        body["tools"] = json!([{"type": "function", "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
        }}]);
    }
    body.to_string().into_bytes()
}

/// The `model` a request names: the tests' scripts are chosen by it.
pub fn model_of(body: &[u8]) -> String {
    serde_json::from_slice::<Json>(body)
        .ok()
        .and_then(|b| b.get("model").and_then(Json::as_str).map(str::to_owned))
        .unwrap_or_default()
}

/// The calls and content a streamed reply adds up to, as a client SDK adds them.
pub fn assemble(events: &[String]) -> (String, Vec<(String, String)>, Option<String>) {
    let mut content = String::new();
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut finish = None;
    for event in events {
        if event == "[DONE]" {
            continue;
        }
        let chunk: Json = serde_json::from_str(event).unwrap();
        assert!(chunk.get("error").is_none(), "error event: {event}");
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            content.push_str(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap() as usize;
            if calls.len() <= index {
                calls.resize(index + 1, Default::default());
            }
            if let Some(name) = call["function"]["name"].as_str() {
                calls[index].0.push_str(name);
            }
            if let Some(arguments) = call["function"]["arguments"].as_str() {
                calls[index].1.push_str(arguments);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            finish = Some(reason.to_owned());
        }
    }
    (content, calls, finish)
}
