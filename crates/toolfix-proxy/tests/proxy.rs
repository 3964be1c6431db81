//! The proxy over real HTTP on loopback, against a scripted upstream: repair of whole and
//! streamed replies, what is never made a call, byte-for-byte passthrough, errors and
//! limits, and concurrent streams.

mod common;

use std::time::{Duration, Instant};

use common::*;
use hyper::{Method, StatusCode};
use serde_json::{Value as Json, json};
use toolfix_proxy::Limits;

const HERMES: &str = "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
const FENCED: &str = "For example:\n```\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>\n```\nThat is how it looks.";
const UNOFFERED: &str = "Sending now.\n<tool_call>{\"name\": \"wire_transfer\", \"arguments\": {\"to\": \"x\"}}</tool_call>";
const PATH: &str = "/v1/chat/completions";

/// The upstream of these tests: the request's `model` names the reply.
fn script(_head: &str, body: &[u8]) -> Vec<Step> {
    let model = model_of(body);
    let stream = serde_json::from_slice::<Json>(body)
        .ok()
        .and_then(|b| b["stream"].as_bool())
        .unwrap_or(false);
    let text = match model.as_str() {
        "hermes" => HERMES,
        "fenced" => FENCED,
        "unoffered" => UNOFFERED,
        "server-unoffered" => {
            let calls = json!([
                {"id": "a", "type": "function", "function": {"name": "wire_transfer", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}
            ]);
            return json_reply(200, &completion(None, Some(calls)));
        }
        "only-unoffered" => {
            let calls = json!([{"id": "a", "type": "function", "function": {"name": "wire_transfer", "arguments": "{}"}}]);
            return json_reply(200, &completion(None, Some(calls)));
        }
        "stream-server-unoffered" => {
            let call = |index: u64, name: &str, arguments: &str| json!({"tool_calls": [{"index": index, "id": name, "type": "function", "function": {"name": name, "arguments": arguments}}]});
            let more = |index: u64, arguments: &str| json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]});
            return vec![
                stream_head(),
                Step::Chunk(chunk(call(0, "wire_transfer", "{\"to\":"), None)),
                Step::Chunk(chunk(more(0, "\"x\"}"), None)),
                Step::Chunk(chunk(call(1, "get_weather", "{\"city\":"), None)),
                Step::Chunk(chunk(more(1, "\"Oslo\"}"), None)),
                Step::Chunk(chunk(json!({}), Some("tool_calls"))),
                Step::Chunk(b"data: [DONE]\n\n".to_vec()),
                Step::End,
            ];
        }
        "error" => return json_reply(500, "{\"error\": {\"message\": \"model not loaded\"}}"),
        "slow" => {
            let mut steps = vec![Step::Sleep(2000)];
            steps.extend(json_reply(200, &completion(Some("late"), None)));
            return steps;
        }
        "drop" => {
            return vec![
                stream_head(),
                Step::Chunk(chunk(
                    json!({"content": "I'll check.\n<tool_call>{\"name\": \"get_weather\", \"argu"}),
                    None,
                )),
            ];
        }
        "stall" => {
            let mut steps = vec![stream_head()];
            // The core gives a call once nothing later can withdraw it: here reasoning
            // came first, and more than its look-ahead of text follows the call.
            steps.push(Step::Chunk(chunk(
                json!({"content": "<think>Paris.</think>"}),
                None,
            )));
            steps.push(Step::Chunk(chunk(json!({"content": HERMES}), None)));
            steps.push(Step::Chunk(chunk(
                json!({"content": " Done.".repeat(80)}),
                None,
            )));
            steps.push(Step::Sleep(5000));
            steps.push(Step::Chunk(chunk(json!({}), Some("stop"))));
            steps.push(Step::Chunk(b"data: [DONE]\n\n".to_vec()));
            steps.push(Step::End);
            return steps;
        }
        "no-finish" => {
            // `[DONE]` with no `finish_reason` before it.
            return vec![
                stream_head(),
                Step::Chunk(chunk(json!({"content": HERMES}), None)),
                Step::Chunk(b"data: [DONE]\n\n".to_vec()),
                Step::End,
            ];
        }
        "no-done" => {
            // A `finish_reason`, then the end of the body with no `[DONE]`.
            return vec![
                stream_head(),
                Step::Chunk(chunk(json!({"content": HERMES}), None)),
                Step::Chunk(chunk(json!({}), Some("stop"))),
                Step::End,
            ];
        }
        other => match other.strip_prefix("cut-") {
            // `cut-N`: the Hermes reply streamed in pieces of N bytes.
            Some(n) => {
                let n: usize = n.parse().unwrap();
                let bytes = HERMES.as_bytes();
                let pieces: Vec<&str> = bytes
                    .chunks(n)
                    .map(|piece| std::str::from_utf8(piece).unwrap())
                    .collect();
                return streamed(&pieces);
            }
            None => "Hello.",
        },
    };
    match stream {
        true => streamed(&[text]),
        false => json_reply(200, &completion(Some(text), None)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_written_in_content_arrives_as_tool_calls() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let reply = send(proxy, Method::POST, PATH, &chat("hermes", false, true)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let body = reply.json();
    let choice = &body["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "I'll check.\n");
    let calls = choice["message"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["type"], "function");
    assert!(calls[0]["id"].as_str().unwrap().starts_with("call_"));
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    let arguments: Json =
        serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris"}));
    assert_eq!(reply.headers["x-upstream"], "yes");
    // Keys keep the upstream's order; a recovered call's are OpenAI's.
    let text = String::from_utf8_lossy(&reply.body);
    assert!(text.starts_with(r#"{"id":"chatcmpl-1","object""#), "{text}");
    assert!(text.contains(r#""tool_calls":[{"id":"call_"#), "{text}");
    assert!(
        text.contains(r#""type":"function","function":{"name":"get_weather""#),
        "{text}"
    );

    let reply = send(proxy, Method::POST, PATH, &chat("hermes", true, true)).await;
    let last = reply.events().into_iter().rev().nth(1).unwrap();
    let delta = last.find(r#""delta""#).unwrap();
    assert!(delta < last.find(r#""finish_reason""#).unwrap(), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fenced_example_and_an_unoffered_name_pass_byte_for_byte() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    for model in ["fenced", "unoffered", "plain"] {
        let reply = send(proxy, Method::POST, PATH, &chat(model, false, true)).await;
        let text = match model {
            "fenced" => FENCED,
            "unoffered" => UNOFFERED,
            _ => "Hello.",
        };
        assert_eq!(
            reply.body,
            completion(Some(text), None).into_bytes(),
            "{model}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_call_to_an_unoffered_tool_is_dropped() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let body = send(
        proxy,
        Method::POST,
        PATH,
        &chat("server-unoffered", false, true),
    )
    .await
    .json();
    let calls = body["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");

    let body = send(
        proxy,
        Method::POST,
        PATH,
        &chat("only-unoffered", false, true),
    )
    .await
    .json();
    assert!(body["choices"][0]["message"].get("tool_calls").is_none());
    assert_eq!(body["choices"][0]["finish_reason"], "stop");

    let reply = send(
        proxy,
        Method::POST,
        PATH,
        &chat("stream-server-unoffered", true, true),
    )
    .await;
    let (_, calls, finish) = assemble(&reply.events());
    assert_eq!(
        calls,
        vec![("get_weather".to_owned(), "{\"city\":\"Oslo\"}".to_owned())]
    );
    assert_eq!(finish.as_deref(), Some("tool_calls"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_tools_passes_byte_for_byte() {
    let (upstream, log) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let request = chat("hermes", false, false);
    let reply = send(proxy, Method::POST, PATH, &request).await;
    assert_eq!(reply.body, completion(Some(HERMES), None).into_bytes());
    let received = log.lock().unwrap().last().cloned().unwrap();
    assert_eq!(received.body, request);
    assert!(
        received
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1")
    );
    assert!(received.head.contains("x-client: yes"));

    let reply = send(proxy, Method::POST, PATH, &chat("hermes", true, false)).await;
    let expected: Vec<u8> = streamed(&[HERMES])
        .into_iter()
        .filter_map(|step| match step {
            Step::Chunk(bytes) => Some(bytes),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(reply.body, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_paths_statuses_and_error_bodies_pass_through() {
    let (upstream, log) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let reply = send(proxy, Method::GET, "/v1/models?x=1", b"").await;
    assert_eq!(reply.body, completion(Some("Hello."), None).into_bytes());
    assert!(
        log.lock()
            .unwrap()
            .last()
            .unwrap()
            .head
            .starts_with("GET /v1/models?x=1 HTTP/1.1")
    );

    let reply = send(proxy, Method::POST, PATH, &chat("error", false, true)).await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        reply.body,
        b"{\"error\": {\"message\": \"model not loaded\"}}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_and_upstream_failures_get_json_errors() {
    let (upstream, _) = upstream(script).await;
    let limits = Limits {
        request_body: 4096,
        response_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let proxy = proxy_with(upstream, limits, None).await;

    let reply = send(proxy, Method::POST, PATH, b"{not json").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );

    let reply = send(proxy, Method::POST, PATH, &vec![b' '; 10_000]).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);

    let reply = send(proxy, Method::POST, PATH, &chat("slow", false, true)).await;
    assert_eq!(reply.status, StatusCode::GATEWAY_TIMEOUT);
    assert_eq!(reply.json()["error"]["type"], "upstream_timeout");

    // Nothing listens on the port of a listener that was closed.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nowhere = closed.local_addr().unwrap();
    drop(closed);
    let proxy = proxy_with(nowhere, Limits::default(), None).await;
    let reply = send(proxy, Method::POST, PATH, &chat("hermes", false, true)).await;
    assert_eq!(reply.status, StatusCode::BAD_GATEWAY);
    assert_eq!(reply.json()["error"]["type"], "upstream_error");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_call_arrives_as_tool_calls_at_every_cut() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    for n in 1..=HERMES.len() {
        let reply = send(
            proxy,
            Method::POST,
            PATH,
            &chat(&format!("cut-{n}"), true, true),
        )
        .await;
        let events = reply.events();
        assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
        let (content, calls, finish) = assemble(&events);
        assert_eq!(content, "I'll check.\n", "pieces of {n}");
        assert_eq!(calls.len(), 1, "pieces of {n}");
        assert_eq!(calls[0].0, "get_weather");
        let arguments: Json = serde_json::from_str(&calls[0].1).unwrap();
        assert_eq!(arguments, json!({"city": "Paris"}));
        assert_eq!(finish.as_deref(), Some("tool_calls"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_fences_and_unoffered_names_stay_text() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    for (model, text) in [("fenced", FENCED), ("unoffered", UNOFFERED)] {
        let reply = send(proxy, Method::POST, PATH, &chat(model, true, true)).await;
        let (content, calls, finish) = assemble(&reply.events());
        assert_eq!(content, text);
        assert!(calls.is_empty());
        assert_eq!(finish.as_deref(), Some("stop"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_call_is_sent_before_the_reply_ends() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let started = Instant::now();
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Full<bytes::Bytes>>();
    let request = hyper::Request::post(format!("http://{proxy}{PATH}"))
        .body(http_body_util::Full::new(bytes::Bytes::from(chat(
            "stall", true, true,
        ))))
        .unwrap();
    let mut body = client.request(request).await.unwrap().into_body();
    let mut seen = Vec::new();
    use http_body_util::BodyExt;
    while let Some(frame) = body.frame().await {
        seen.extend_from_slice(&frame.unwrap().into_data().unwrap());
        if String::from_utf8_lossy(&seen).contains("\"tool_calls\"") {
            break;
        }
    }
    assert!(String::from_utf8_lossy(&seen).contains("get_weather"));
    // The upstream holds the end back for 5 s; a loaded machine still answers in 4.
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the call waited for the end"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_off_mid_reply_ends_in_an_error_and_no_call() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let reply = send(proxy, Method::POST, PATH, &chat("drop", true, true)).await;
    let events = reply.events();
    let last: Json = serde_json::from_str(events.last().unwrap()).unwrap();
    assert_eq!(last["error"]["type"], "upstream_error");
    let text = String::from_utf8_lossy(&reply.body);
    assert!(!text.contains("tool_calls"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_streams_lose_nothing() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    let tasks: Vec<_> = (0..200)
        .map(|i| {
            let model = format!("cut-{}", 1 + i % 9);
            tokio::spawn(
                async move { send(proxy, Method::POST, PATH, &chat(&model, true, true)).await },
            )
        })
        .collect();
    let deadline = Duration::from_secs(60);
    for task in tasks {
        let reply = tokio::time::timeout(deadline, task).await.unwrap().unwrap();
        let events = reply.events();
        assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
        let (content, calls, finish) = assemble(&events);
        assert_eq!(content, "I'll check.\n");
        assert_eq!(calls.len(), 1);
        assert_eq!(finish.as_deref(), Some("tool_calls"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shadow_mode_changes_nothing_and_writes_each_disagreement() {
    let (upstream, _) = upstream(script).await;
    let dir = std::env::temp_dir().join(format!("toolfix-proxy-shadow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("shadow.jsonl");
    let _ = std::fs::remove_file(&file);
    let proxy = proxy_with(upstream, Limits::default(), Some(file.clone())).await;

    let reply = send(proxy, Method::POST, PATH, &chat("hermes", false, true)).await;
    assert_eq!(reply.body, completion(Some(HERMES), None).into_bytes());
    let reply = send(proxy, Method::POST, PATH, &chat("cut-5", true, true)).await;
    let (content, calls, _) = assemble(&reply.events());
    assert_eq!((content.as_str(), calls.len()), (HERMES, 0));
    send(
        proxy,
        Method::POST,
        PATH,
        &chat("server-unoffered", false, true),
    )
    .await;
    send(proxy, Method::POST, PATH, &chat("fenced", false, true)).await;

    let lines: Vec<Json> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["rules"], json!(["G7"]));
    assert_eq!(lines[0]["kinds"], json!(["text_call"]));
    assert_eq!(lines[0]["content"], HERMES);
    assert_eq!(lines[0]["toolfix"][0]["function"]["name"], "get_weather");
    assert_eq!(lines[1]["stream"], true);
    assert_eq!(lines[1]["rules"], json!(["G7"]));
    assert_eq!(lines[2]["rules"], json!(["G2"]));
    assert_eq!(lines[2]["server"].as_array().unwrap().len(), 2);
    assert_eq!(lines[2]["toolfix"].as_array().unwrap().len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_ends_well_with_either_done_or_finish_reason() {
    let (upstream, _) = upstream(script).await;
    let proxy = proxy(upstream).await;
    for model in ["no-finish", "no-done"] {
        let reply = send(proxy, Method::POST, PATH, &chat(model, true, true)).await;
        let (content, calls, finish) = assemble(&reply.events());
        assert_eq!(content, "I'll check.\n", "{model}");
        assert_eq!(calls.len(), 1, "{model}");
        assert_eq!(finish.as_deref(), Some("tool_calls"), "{model}");
    }
}
