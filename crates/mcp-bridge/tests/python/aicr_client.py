"""Drives the aicr.* review tools of `refscope mcp` with the official MCP
Python SDK (PyPI `mcp` 2.3), checking .aicr-output-state.json after every
call.

Run by cli/tests/aicr_python.rs, which builds the fixture repository of
mcp-bridge/tests/aicr_fixture (Alice, Bob and Carol; a rename; Legacy.java
deleted at the revision; symbolic links in and out), adds task `review`
(revision = Carol's commit, base = Bob's) to a store and passes:

    aicr_client.py --refscope BIN --store DIR --task review \
        --first SHA --base SHA --revision SHA --transport stdio|http

Every tool is called with valid input (the state must change as the call
says) and with invalid input (an error result naming the field; the state
file must stay byte for byte as it was). Any failed check raises.
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

STATE_FILE = ".aicr-output-state.json"
ORDER = "src/main/java/com/acme/Order.java"
ADDED = "src/main/java/com/acme/Added.java"
RENAMED = "src/main/java/com/acme/Renamed.java"
OLD = "src/main/java/com/acme/Old.java"
LEGACY = "src/main/java/com/acme/Legacy.java"

FIELDS = {
    "aicr.report_problem": (
        {"file", "line", "end_line", "severity", "category", "message", "suggestion", "fingerprint"},
        {"file", "line", "severity", "category", "message"},
    ),
    "aicr.publish_summary": ({"title", "markdown"}, {"markdown"}),
    "aicr.skip": ({"reason"}, {"reason"}),
    "aicr.fetch_more_context": ({"path", "range", "reason"}, {"path", "reason"}),
    "aicr.try_blame": ({"path", "range", "reason"}, {"path", "reason"}),
}


class Review:
    """One MCP session and the agent directory its server writes to."""

    def __init__(self, session, agent_dir):
        self.session = session
        self.agent_dir = agent_dir

    def state_bytes(self):
        path = os.path.join(self.agent_dir, STATE_FILE)
        if not os.path.exists(path):
            return None
        with open(path, "rb") as file:
            return file.read()

    def state(self):
        raw = self.state_bytes()
        return None if raw is None else json.loads(raw)

    async def ok(self, name, arguments):
        """A valid call: an answer, and a state file that changed."""
        before = self.state()
        result = await self.session.call_tool(name, arguments)
        assert not result.is_error, f"{name} {arguments}: expected an answer, got {result.content}"
        answer = json.loads(result.content[0].text)
        after = self.state()
        assert after is not None, f"{name}: no state file after the call"
        assert after != before, f"{name} {arguments}: the state did not change"
        assert not [f for f in os.listdir(self.agent_dir) if f.endswith(".tmp")], "a temporary file was left"
        return answer, after

    async def refused(self, name, arguments, *expected):
        """An invalid call: an error result naming what to fix, and a state
        file left byte for byte as it was."""
        before = self.state_bytes()
        result = await self.session.call_tool(name, arguments)
        assert result.is_error, f"{name} {arguments}: expected an error result, got {result.content}"
        message = result.content[0].text
        for part in expected:
            assert part in message, f"{name} {arguments}: {message!r} does not mention {part!r}"
        after = self.state_bytes()
        if before is not None:
            assert after == before, f"{name} {arguments}: an invalid call changed the state"
        return message


def problem(file, line, **extra):
    return {
        "file": file,
        "line": line,
        "severity": "high",
        "category": "correctness",
        "message": "the total is overwritten when the order is empty",
        **extra,
    }


async def check_surface(session):
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    for name, (fields, required) in FIELDS.items():
        assert name in tools, f"{name} not listed: {sorted(tools)}"
        schema = tools[name].input_schema
        assert schema["type"] == "object", schema
        assert set(schema["properties"]) == fields, (name, sorted(schema["properties"]))
        assert set(schema["required"]) == required, (name, schema["required"])
        assert schema["additionalProperties"] is False, name
        for field, property_schema in schema["properties"].items():
            assert property_schema.get("description"), f"{name}.{field} has no description"
        assert tools[name].description, name


async def exercise_findings(review, shas):
    # aicr.report_problem: a span in the hunk, by the canonical name.
    answer, state = await review.ok(
        "aicr.report_problem",
        problem(ORDER, 20, end_line=21, suggestion="```diff\n-a\n+b\n```", fingerprint="order-total"),
    )
    assert answer["id"] == "P1" and answer["location"] == f"{ORDER}:20-21", answer
    assert state["revision"] == shas.revision and state["baseRevision"] == shas.base, state
    assert [p["location"] for p in state["problems"]] == [f"{ORDER}:20-21"]
    assert state["problems"][0]["fingerprint"] == "order-total"
    # ... and by the spellings clients send.
    _, state = await review.ok("aicr-output_aicr_report_problem", problem(ADDED, 1))
    _, state = await review.ok("mcp__aicr-output__aicr_report_problem", problem(ORDER, 24, severity="low"))
    assert [p["location"] for p in state["problems"]] == [f"{ORDER}:20-21", f"{ADDED}:1", f"{ORDER}:24"], state
    assert state["problems"][2]["severity"] == "low"

    await review.refused("aicr.report_problem", problem(ORDER, 5), "field `line` (5)", "17-24")
    await review.refused("aicr.report_problem", problem("README.md", 1), "field `file`", "not changed by the diff")
    await review.refused("aicr.report_problem", problem(ORDER, 20, end_line=30), "field `end_line` (30)")
    await review.refused("aicr.report_problem", problem(ORDER, 20, author="Carol"), "unknown field `author`", "aicr.try_blame")
    await review.refused("aicr.report_problem", problem(ORDER, 20, severity="blocker"), "field `severity`")
    await review.refused("aicr.report_problem", problem(ORDER, 20, fingerprint="order-total"), "field `fingerprint`")
    missing_message = problem(ORDER, 20)
    del missing_message["message"]
    await review.refused("aicr.report_problem", missing_message, "field `message` is required")

    # aicr.publish_summary.
    _, state = await review.ok("aicr.publish_summary", {"title": "Review", "markdown": "Two problems in Order."})
    assert state["summary"] == {"title": "Review", "markdown": "Two problems in Order."}, state
    await review.refused("aicr.publish_summary", {"markdown": "  "}, "field `markdown`")
    await review.refused("aicr.publish_summary", {"title": "x"}, "field `markdown` is required")

    # aicr.skip is refused beside problems.
    await review.refused("aicr.skip", {"reason": "lgtm"}, "already reported")
    await review.refused("aicr_skip", {"reason": "Looks fine"}, "field `reason`")

    # aicr.fetch_more_context.
    answer, state = await review.ok(
        "aicr.fetch_more_context",
        {"path": ORDER, "range": {"start_line": 19, "end_line": 21}, "reason": "the change"},
    )
    assert answer["content"] == "// line 19\n// line 20 by Carol\n// line 21 by Carol\n", answer
    assert answer["total_lines"] == 30 and answer["revision"] == shas.revision, answer
    assert state["contextRequests"] == [
        {"path": ORDER, "range": {"start_line": 19, "end_line": 21}, "reason": "the change"}
    ], state
    answer, state = await review.ok("aicr_fetch_more_context", {"path": "src/alias/java/com/acme/Added.java", "reason": "via a link"})
    assert answer["resolved_path"] == ADDED, answer
    assert len(state["contextRequests"]) == 2
    for path, rule in [
        (LEGACY, "does not exist at revision"),
        ("escape/secret", "leads out of the repository"),
        ("/etc/passwd", "is absolute"),
        ("src/../../x", "'..'"),
    ]:
        await review.refused("aicr.fetch_more_context", {"path": path, "reason": "try"}, rule, "stop retrying this path")
    await review.refused("aicr.fetch_more_context", {"path": ORDER}, "field `reason` is required")

    # aicr.try_blame: authors, the rename, the deleted file; never source text.
    answer, state = await review.ok(
        "aicr.try_blame", {"path": ORDER, "range": {"start_line": 4, "end_line": 6}, "reason": "who changed line 5"}
    )
    assert answer["status"] == "ok", answer
    assert [(l["line"], l["author"], l["revision"]) for l in answer["lines"]] == [
        (4, "Alice", shas.first),
        (5, "Bob", shas.base),
        (6, "Alice", shas.first),
    ], answer
    assert answer["lines"][1]["summary"] == "Rename Old to Renamed", answer
    assert answer["lines"][1]["author_time"] == "2024-03-09T11:00:00-05:00", answer
    assert "// line" not in json.dumps(answer), "blame returned source text"
    answer, state = await review.ok("mcp__aicr-output__aicr_try_blame", {"path": RENAMED, "reason": "history"})
    assert [l["author"] for l in answer["lines"]] == ["Alice", "Alice", "Bob", "Alice", "Alice"], answer
    assert answer["lines"][0]["original_path"] == OLD, answer
    answer, state = await review.ok("aicr.try_blame", {"path": LEGACY, "reason": "deleted"})
    assert answer["status"] == "not_found" and answer["lines"] == [], answer
    answer, state = await review.ok(
        "aicr.try_blame", {"path": ORDER, "range": {"start_line": 29, "end_line": 33}, "reason": "the end"}
    )
    assert answer["status"] == "partial", answer
    assert [r["status"] for r in state["attributionRequests"]] == ["ok", "ok", "not_found", "partial"], state
    await review.refused("aicr.try_blame", {"path": "escape", "reason": "out"}, "leads out of the repository")
    await review.refused("aicr.try_blame", {"path": ORDER, "range": {"start_line": 3, "end_line": 1}, "reason": "x"}, "field `range`")

    # Nothing valid was lost along the way.
    final = review.state()
    assert len(final["problems"]) == 3 and final["skipReason"] is None, final


async def exercise_skip(review):
    # The first call is invalid: the state written is empty.
    await review.refused("aicr.skip", {}, "field `reason` is required")
    assert review.state()["problems"] == [] and review.state()["skipReason"] is None
    answer, state = await review.ok("aicr.skip", {"reason": "lgtm"})
    assert answer["skipReason"] == "lgtm" and state["skipReason"] == "lgtm", state
    _, state = await review.ok("AICR.SKIP", {"reason": "no_reviewable_code"})
    assert state["skipReason"] == "no_reviewable_code", state


def server_args(args, agent_dir):
    return ["mcp", "--store", args.store, "--tools", "review", "--task", args.task, "--agent-dir", agent_dir]


@contextlib.asynccontextmanager
async def connect(args, agent_dir):
    if args.transport == "stdio":
        params = StdioServerParameters(command=args.refscope, args=server_args(args, agent_dir))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
        return
    server = subprocess.Popen(
        [args.refscope, *server_args(args, agent_dir), "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = None
        seen = []
        for line in server.stderr:
            seen.append(line)
            found = re.search(r"serving MCP on (http://\S+)", line)
            if found:
                url = found.group(1)
                break
        assert url, f"the server did not say where it listens: {''.join(seen)}"
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=30)
        assert code == 0, f"the server exited with {code} on Ctrl-C: {server.stderr.read()}"
    finally:
        if server.poll() is None:
            server.kill()


async def run(args):
    with tempfile.TemporaryDirectory() as findings_dir, tempfile.TemporaryDirectory() as skip_dir:
        async with connect(args, findings_dir) as session:
            await check_surface(session)
            await exercise_findings(Review(session, findings_dir), args)
        async with connect(args, skip_dir) as session:
            await exercise_skip(Review(session, skip_dir))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--refscope", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--first", required=True)
    parser.add_argument("--base", required=True)
    parser.add_argument("--revision", required=True)
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    args = parser.parse_args()
    asyncio.run(run(args))
    print(f"ok: {args.transport}")


if __name__ == "__main__":
    sys.exit(main())
