"""`toolfix proxy` with the official `openai` SDK as the client, streamed and not.

A scripted upstream (an OpenAI-compatible server in this process, on loopback) answers
by the request's `model`; `toolfix proxy` runs in front of it; the SDK talks to the
proxy as it would to the server. What must hold (issue 36):

* a Hermes call written in content arrives as `tool_calls`, streamed and not, with the
  same name and arguments;
* a fenced example and a call to an unoffered tool never do;
* a request without tools is passed through byte for byte;
* the real praisonaiagents 1.7.17 agent, pointed at the proxy as at any OpenAI-compatible
  server, runs the tool the model wrote as text and never the fenced example (through
  its OpenAI adapter the package salvages nothing itself: the repair is the proxy's).

Nothing leaves the machine: name resolution is refused for every host but loopback
(litellm and tiktoken would otherwise look for their remote files).

Usage: check_clients.py path/to/toolfix. Ends with the line "N passed, N failed".
"""

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import traceback


def _loopback_only(getaddrinfo):
    def resolve(host, *args, **kwargs):
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise socket.gaierror(socket.EAI_NONAME, f"{host}: not resolved in this test")
        return getaddrinfo(host, *args, **kwargs)
    return resolve


socket.getaddrinfo = _loopback_only(socket.getaddrinfo)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DO_NOT_TRACK", "true")
os.environ["PRAISONAI_AUTO_APPROVE"] = "true"

import openai  # noqa: E402

HERMES = 'I\'ll check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
FENCED = ('For example:\n```\n<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}'
          '</tool_call>\n```\nThat is how it looks.')
UNOFFERED = 'Sending.\n<tool_call>{"name": "wire_transfer", "arguments": {"to": "x"}}</tool_call>'
REPLIES = {"hermes": HERMES, "fenced": FENCED, "unoffered": UNOFFERED, "plain": "Hello."}
# The agent's model: a call written as text, and a fenced example of another offered tool.
AGENT_MODEL = "local-model"
AGENT_CALL = HERMES + ('\nNever run this example:\n```\n'
                       '<tool_call>{"name": "delete_user", "arguments": {"id": 7}}</tool_call>\n```')
AGENT_ANSWER = "It is sunny in Paris."
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]

sent_bodies = []  # what the upstream answered with, in order


def completion(content):
    return json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }).encode()


def chunk(delta, finish=None):
    body = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if request["model"] == AGENT_MODEL:
            answered = any(m.get("role") == "tool" for m in request["messages"])
            text = AGENT_ANSWER if answered else AGENT_CALL
        else:
            text = REPLIES[request["model"]]
        if request.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(chunk({"role": "assistant", "content": ""}))
            for start in range(0, len(text), 7):  # pieces that cut the markers
                self.wfile.write(chunk({"content": text[start:start + 7]}))
                self.wfile.flush()
            self.wfile.write(chunk({}, "stop") + b"data: [DONE]\n\n")
            self.close_connection = True
            return
        body = completion(text)
        sent_bodies.append(body)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(toolfix):
    upstream = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    port = free_port()
    proxy = subprocess.Popen([toolfix, "proxy", "--upstream", f"http://127.0.0.1:{upstream.server_port}/v1",
                              "--listen", f"127.0.0.1:{port}"])
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return upstream, proxy, port
        except OSError:
            time.sleep(0.05)
    proxy.kill()
    raise SystemExit("toolfix proxy did not start listening")


def calls_of(message):
    return [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]


def streamed(client, model, tools=True):
    """The content, calls and finish reason a streamed reply adds up to."""
    extra = {"tools": TOOLS} if tools else {}
    content, calls, finish = "", {}, None
    for event in client.chat.completions.create(model=model, messages=MESSAGES, stream=True, **extra):
        choice = event.choices[0]
        content += choice.delta.content or ""
        for call in choice.delta.tool_calls or []:
            name, arguments = calls.get(call.index, ("", ""))
            calls[call.index] = (name + (call.function.name or ""), arguments + (call.function.arguments or ""))
        finish = choice.finish_reason or finish
    return content, [(n, json.loads(a)) for _, (n, a) in sorted(calls.items())], finish


def checks(client):
    def hermes_whole():
        reply = client.chat.completions.create(model="hermes", messages=MESSAGES, tools=TOOLS)
        assert calls_of(reply.choices[0].message) == [("get_weather", {"city": "Paris"})], reply
        assert reply.choices[0].finish_reason == "tool_calls"
        assert reply.choices[0].message.tool_calls[0].type == "function"
        assert reply.choices[0].message.content == "I'll check.\n"

    def hermes_streamed():
        content, calls, finish = streamed(client, "hermes")
        assert calls == [("get_weather", {"city": "Paris"})], calls
        assert finish == "tool_calls" and content == "I'll check.\n", (content, finish)

    def never_calls():
        for model in ("fenced", "unoffered"):
            reply = client.chat.completions.create(model=model, messages=MESSAGES, tools=TOOLS)
            assert not reply.choices[0].message.tool_calls, (model, reply)
            assert reply.choices[0].message.content == REPLIES[model]
            content, calls, finish = streamed(client, model)
            assert calls == [] and content == REPLIES[model] and finish == "stop", (model, content, calls)

    def no_tools_byte_for_byte():
        raw = client.chat.completions.with_raw_response.create(model="hermes", messages=MESSAGES)
        assert raw.http_response.content == sent_bodies[-1]
        assert not raw.parse().choices[0].message.tool_calls

    def praisonai_agent_runs_the_offered_tool_only():
        ran = []

        def get_weather(city: str) -> str:
            """The weather in a city."""
            ran.append(("get_weather", city))
            return f"sunny in {city}"

        def delete_user(id: int) -> str:
            """Delete a user."""
            ran.append(("delete_user", id))
            return "deleted"

        # litellm's OpenAI route reads the server's address from the environment.
        os.environ["OPENAI_BASE_URL"] = str(client.base_url)
        from praisonaiagents import Agent
        agent = Agent(instructions="Answer.", llm=f"openai/{AGENT_MODEL}", api_key="unused",
                      tools=[get_weather, delete_user])
        answer = agent.start("Weather in Paris?")
        assert ran == [("get_weather", "Paris")], ran
        assert answer == AGENT_ANSWER, answer

    return [hermes_whole, hermes_streamed, never_calls, no_tools_byte_for_byte,
            praisonai_agent_runs_the_offered_tool_only]


def main():
    toolfix = sys.argv[1] if len(sys.argv) > 1 else "target/release/toolfix"
    upstream, proxy, port = start(toolfix)
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0)
    passed = failed = 0
    try:
        for check in checks(client):
            try:
                check()
                passed += 1
                print(f"ok   {check.__name__}")
            except Exception:
                failed += 1
                print(f"FAIL {check.__name__}\n{traceback.format_exc()}")
    finally:
        proxy.terminate()
        proxy.wait()
        upstream.shutdown()
    print(f"proxy clients: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
