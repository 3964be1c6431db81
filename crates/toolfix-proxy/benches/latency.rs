//! The time the proxy adds: the same scripted upstream on loopback, asked directly and
//! through the proxy, per non-streamed response and per streamed chunk
//! (`cargo bench -p toolfix-proxy --bench latency`; BENCHMARKS.md has the numbers).
//!
//! Each request is timed from sending to the last byte of the body; the medians of
//! the two ways are compared. A streamed reply has `CHUNKS` content chunks, so the
//! added time per chunk is the added time per stream over `CHUNKS`. Throughput is
//! `LOAD` streamed replies with a call, `CONCURRENT` at a time, both ways.

#[path = "../tests/common/mod.rs"]
mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::*;
use hyper::Method;

const ROUNDS: usize = 400;
const CHUNKS: usize = 200;
const LOAD: usize = 2000;
const CONCURRENT: usize = 50;
const HERMES: &str = "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";

fn script(_head: &str, body: &[u8]) -> Vec<Step> {
    let stream = String::from_utf8_lossy(body).contains("\"stream\":true");
    let text = match model_of(body).as_str() {
        "hermes" => HERMES,
        _ => "The weather in Paris is mild, with light wind from the west.",
    };
    match stream {
        false => json_reply(200, &completion(Some(text), None)),
        true => {
            // CHUNKS pieces of prose, then the call.
            let prose = "Some prose. ";
            let mut pieces: Vec<&str> = vec![prose; CHUNKS - 1];
            pieces.push(text);
            streamed(&pieces)
        }
    }
}

async fn median(address: SocketAddr, model: &str, stream: bool) -> Duration {
    let body = chat(model, stream, true);
    let mut times = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS + 20 {
        let started = Instant::now();
        let reply = send(address, Method::POST, "/v1/chat/completions", &body).await;
        let elapsed = started.elapsed();
        assert!(reply.status.is_success());
        if round >= 20 {
            times.push(elapsed);
        }
    }
    times.sort();
    times[times.len() / 2]
}

/// Replies per second for `LOAD` streamed replies, `CONCURRENT` at a time.
async fn throughput(address: SocketAddr) -> f64 {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..CONCURRENT {
        tasks.spawn(async move {
            for _ in 0..LOAD / CONCURRENT {
                let body = chat("hermes", true, true);
                let reply = send(address, Method::POST, "/v1/chat/completions", &body).await;
                assert!(reply.status.is_success());
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    LOAD as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (upstream, _) = upstream(script).await;
        let proxy = proxy(upstream).await;
        println!("median of {ROUNDS} requests each, loopback, 2 worker threads");
        for (model, what) in [("plain", "no text call"), ("hermes", "a Hermes call repaired")] {
            let direct = median(upstream, model, false).await;
            let through = median(proxy, model, false).await;
            println!(
                "non-streamed, {what}: direct {direct:?}, proxied {through:?}, added {:?} per response",
                through.saturating_sub(direct)
            );
        }
        for (model, what) in [("plain", "prose"), ("hermes", "prose then a Hermes call")] {
            let direct = median(upstream, model, true).await;
            let through = median(proxy, model, true).await;
            let added = through.saturating_sub(direct);
            println!(
                "streamed, {CHUNKS} chunks, {what}: direct {direct:?}, proxied {through:?}, added {:?} per stream, {:?} per chunk",
                added,
                added / CHUNKS as u32
            );
        }
        let direct = throughput(upstream).await;
        let through = throughput(proxy).await;
        println!(
            "throughput, {LOAD} streamed replies of {CHUNKS} chunks with a call, {CONCURRENT} at a time: direct {direct:.0}/s, proxied {through:.0}/s"
        );
    });
}
