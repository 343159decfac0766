"""Drives `refscope mcp` with the official MCP Python SDK (PyPI `mcp` 2.3).

Run by cli/tests/mcp_python.rs, which builds a git repository of the zoo
fixture, adds task `zoo` to a store and passes:

    context_client.py --refscope BIN --store DIR --task zoo --transport stdio|http

It lists the tools, calls code_context (by its name and by a client's
prefixed spelling), checks the answer, calls it with bad input and checks
that each is an error result the server survives; then the same for
code_query (the query language) and code_history, and follows the cursors
of a paged code_query answer and of a code_context list cut at max_callers. Over HTTP the server is started with a
bearer token: a request without it is refused, the client sends it, the
session ends without the SDK reporting a failed termination, and Ctrl-C
(SIGINT) stops the server cleanly. Any failed check raises.
"""

import argparse
import asyncio
import json
import logging
import os
import re
import signal
import subprocess
import sys

import httpx2

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

KEEPER = "src/main/java/com/zoo/Keeper.java"
FEED = "com.zoo.Keeper#feed(com.zoo.Animal,com.zoo.Food)"


def answer_of(result):
    assert not result.is_error, f"expected an answer, got an error: {result.content}"
    text = result.content[0].text
    answer = json.loads(text)
    assert result.structured_content == answer, "structured content and text differ"
    return answer


def error_text(result):
    assert result.is_error, f"expected an error result, got {result.content}"
    return result.content[0].text


async def exercise(session, task):
    await session.initialize()
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert "code_context" in tools, f"code_context not listed: {sorted(tools)}"
    schema = tools["code_context"].input_schema
    assert schema["type"] == "object"
    assert set(schema["required"]) == {"task_id", "file_path", "diff_lines"}, schema["required"]
    for optional in ["caller_depth", "callee_depth", "max_source_lines", "max_callers", "include_tests", "key_style"]:
        assert optional in schema["properties"], f"{optional} missing from the schema"
    description = tools["code_context"].description
    for topic in ["Inputs:", "Output:", "When to use:", "Caveats:"]:
        assert topic in description, f"the description does not cover {topic}"

    arguments = {"task_id": task, "file_path": KEEPER, "diff_lines": [22, 25]}
    answer = answer_of(await session.call_tool("code_context", arguments))
    assert answer["task_id"] == task
    assert answer["file"] == KEEPER
    owning = answer["element_relations"]["owning_elements"]["22_25"]
    assert len(owning) == 1, owning
    info = answer["element_info"][owning[0]["element_id"]]
    assert info["qualified_id"] == FEED, info
    assert info["kind"] == "METHOD"
    assert info["source"].startswith("    public void feed(Animal animal, Food food) {"), info["source"]
    callers = {(loc["file"], loc["line"]) for loc in owning[0]["reference_locations"]}
    assert (KEEPER, 19) in callers, callers
    used_on_23 = answer["element_relations"]["referenced_elements"]["23"]
    assert [(u["name"], u["kind"]) for u in used_on_23] == [("eat", "METHOD")], used_on_23
    eat = answer["element_info"][used_on_23[0]["element_id"]]
    implementations = {impl["element_id"] for impl in eat["implementations"]}
    assert "com.zoo.Mammal#eat(com.zoo.Food)" in implementations, implementations

    # A client that prefixes the server name reaches the same tool.
    again = answer_of(await session.call_tool("refscope_code_context", arguments))
    assert again == answer

    zh = answer_of(await session.call_tool("code_context", {**arguments, "key_style": "zh"}))
    assert "元素关系" in zh and "元素信息" in zh, sorted(zh)
    assert "所属元素" in zh["元素关系"] and "引用元素" in zh["元素关系"]

    bad_calls = [
        ({**arguments, "diff_lines": [22, 25, 30]}, "pairs"),
        ({**arguments, "diff_lines": [25, 22]}, "ends before it starts"),
        ({**arguments, "diff_lines": [45, 400]}, "past the end"),
        ({**arguments, "task_id": "no-such-task"}, "no task 'no-such-task'"),
        ({**arguments, "file_path": "src/main/java/com/zoo/Gone.java"}, "Gone.java"),
        ({"task_id": task, "file_path": KEEPER}, "diff_lines"),
    ]
    for bad, expected in bad_calls:
        message = error_text(await session.call_tool("code_context", bad))
        assert expected in message, f"{bad}: {message!r} does not mention {expected!r}"
    message = error_text(await session.call_tool("no_such_tool", {}))
    assert "unknown tool" in message, message

    # Still serving after every refusal.
    assert answer_of(await session.call_tool("code_context", arguments)) == answer
    notes = answer_of(await session.call_tool("code_context", {**arguments, "file_path": "README.md", "diff_lines": [1, 2]}))
    assert notes["element_relations"]["owning_elements"] == {}
    assert any("not a Java file" in note for note in notes["notes"]), notes

    await exercise_query(session, task, tools)


async def exercise_query(session, task, tools):
    assert "code_query" in tools, f"code_query not listed: {sorted(tools)}"
    assert set(tools["code_query"].input_schema["required"]) == {"task_id", "query"}
    query = f"{KEEPER}:22 | callers"
    answer = answer_of(await session.call_tool("code_query", {"task_id": task, "query": query}))
    assert answer["query"] == query
    sites = {(row["edge"]["site"]["file"], row["edge"]["site"]["line"]) for row in answer["elements"]}
    assert (KEEPER, 19) in sites, answer
    assert all(row["edge"]["relation"] == "callers" for row in answer["elements"]), answer
    assert answer["count"] == len(answer["elements"])
    # The same through a dotted, prefixed spelling, and as a count.
    counted = answer_of(await session.call_tool("refscope.code_query", {"task_id": task, "query": query + " | count"}))
    assert counted["count"] == answer["count"] and counted["elements"] is None, counted

    for bad, expected in [
        ({"task_id": task, "query": "com.zoo.Keeper#feed | calers"}, "callers"),
        ({"task_id": task, "query": "com.zoo.Nowhere#nothing"}, "com.zoo.Nowhere"),
        ({"task_id": "no-such-task", "query": query}, "no task 'no-such-task'"),
        ({"task_id": task}, "query"),
    ]:
        message = error_text(await session.call_tool("code_query", bad))
        assert expected in message, f"{bad}: {message!r} does not mention {expected!r}"
    assert answer_of(await session.call_tool("code_query", {"task_id": task, "query": query})) == answer

    # Pages: a query's answer two elements at a time, followed by its
    # cursors, holds the whole answer once, in order.
    wide = "methods in com.zoo"
    whole = answer_of(await session.call_tool("code_query", {"task_id": task, "query": wide}))
    assert whole["total"] == whole["count"] > 4 and whole["next_cursor"] is None, whole
    paged, cursor = [], None
    while True:
        arguments = {"task_id": task, "query": wide, "limit": 2}
        if cursor is not None:
            arguments["cursor"] = cursor
        page = answer_of(await session.call_tool("code_query", arguments))
        assert page["total"] == whole["total"] and len(page["elements"]) <= 2, page
        paged.extend(row["id"] for row in page["elements"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert paged == [row["id"] for row in whole["elements"]], paged
    first = answer_of(await session.call_tool("code_query", {"task_id": task, "query": wide, "limit": 2}))
    message = error_text(await session.call_tool(
        "code_query", {"task_id": task, "query": "types in com.zoo", "cursor": first["next_cursor"]}))
    assert "another query" in message, message

    # A code_context list cut at max_callers continues with its cursor.
    mammal, eat = "src/main/java/com/zoo/Mammal.java", "com.zoo.Mammal#eat(com.zoo.Food)"
    arguments = {"task_id": task, "file_path": mammal, "diff_lines": [20, 20], "max_callers": 100}
    full = answer_of(await session.call_tool("code_context", arguments))
    sites = full["element_relations"]["owning_elements"]["20_20"][0]["reference_locations"]
    assert len(sites) >= 3, sites
    cut_answer = answer_of(await session.call_tool("code_context", {**arguments, "max_callers": 1}))
    kept = cut_answer["element_relations"]["owning_elements"]["20_20"][0]["reference_locations"]
    cut = [t for t in cut_answer["truncated"] if t["what"] == f"reference_locations of {eat}"]
    assert len(cut) == 1 and cut[0]["total"] == len(sites), cut_answer["truncated"]
    cursor = cut[0]["next_cursor"]
    while cursor is not None:
        page = answer_of(await session.call_tool(
            "code_context", {**arguments, "max_callers": 1, "cursor": cursor}))
        assert page["continues"] == cut[0]["what"] and page["total"] == len(sites), page
        kept.extend(page["reference_locations"])
        cursor = page["next_cursor"]
    assert kept == sites, kept

    # code_history: the one commit of the fixture added the method.
    assert "code_history" in tools, f"code_history not listed: {sorted(tools)}"
    assert set(tools["code_history"].input_schema["required"]) == {"task_id", "element"}
    history = answer_of(await session.call_tool("code_history", {"task_id": task, "element": FEED}))
    assert history["element"] == FEED and history["path"] == KEEPER, history
    assert [c["change"] for c in history["commits"]] == ["added"], history
    commit = history["commits"][0]
    assert re.fullmatch(r"[0-9a-f]{40}", commit["commit"]) and commit["summary"] == "zoo", commit
    assert history["truncated"] is False, history
    assert history["total"] == 1 and history["next_cursor"] is None, history
    by_line = answer_of(await session.call_tool(
        "code_history", {"task_id": task, "element": f"{KEEPER}:{history['start_line']}", "limit": 5}))
    assert by_line["commits"] == history["commits"], by_line
    for bad, expected in [
        ({"task_id": task, "element": FEED, "limit": 0}, "at least 1"),
        ({"task_id": task, "element": "com.zoo.Nowhere#nothing"}, "com.zoo.Nowhere"),
        ({"task_id": task}, "element"),
    ]:
        message = error_text(await session.call_tool("code_history", bad))
        assert expected in message, f"{bad}: {message!r} does not mention {expected!r}"


async def over_stdio(args):
    params = StdioServerParameters(
        command=args.refscope,
        args=["mcp", "--store", args.store, "--tools", "context,query"],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, args.task)


class Warnings(logging.Handler):
    """The warnings a logger reports."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


async def over_http(args):
    token = "zoo-token-" + os.urandom(8).hex()
    server = subprocess.Popen(
        [args.refscope, "mcp", "--store", args.store, "--tools", "context,query", "--http", "127.0.0.1:0"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "REFSCOPE_MCP_TOKEN": token},
    )
    warnings = Warnings()
    logging.getLogger("mcp.client.streamable_http").addHandler(warnings)
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
        assert url.endswith("/mcp"), url
        async with httpx2.AsyncClient() as plain:
            refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert refused.status_code == 401, f"no token: {refused.status_code} {refused.text}"
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await exercise(session, args.task)
        failed = [m for m in warnings.messages if "termination failed" in m]
        assert not failed, f"the session did not end cleanly: {failed}"
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=30)
        assert code == 0, f"the server exited with {code} on Ctrl-C: {server.stderr.read()}"
    finally:
        if server.poll() is None:
            server.kill()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--refscope", required=True)
    parser.add_argument("--store", required=True)
    parser.add_argument("--task", required=True)
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    args = parser.parse_args()
    asyncio.run(over_stdio(args) if args.transport == "stdio" else over_http(args))
    print(f"ok: {args.transport}")


if __name__ == "__main__":
    sys.exit(main())
