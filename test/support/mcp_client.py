"""A second, independent MCP client: the Python `mcp` SDK over Streamable HTTP.

Usage: python3 mcp_client.py URL KEY. Connects with `Authorization: Bearer KEY`, runs initialize, tools/list,
a few tools/call (search_content among them) and a resources/read, and prints what it saw as one JSON object
for the test to check.
"""

import json
import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def main(url, key):
    seen = {}
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                seen["server"] = init.server_info.name
                seen["protocol_version"] = init.protocol_version
                tools = await session.list_tools()
                seen["tools"] = [tool.name for tool in tools.tools]
                created = await session.call_tool("create_meeting", {"title": "From Python"})
                seen["created"] = {"is_error": created.is_error, "structured": created.structured_content}
                code = created.structured_content["code"]
                got = await session.call_tool("get_meeting", {"meeting": code})
                seen["got"] = got.structured_content
                missing = await session.call_tool("get_meeting", {"meeting": "zzz-zzzz-zzz"})
                seen["missing"] = {"is_error": missing.is_error, "text": text_of(missing)}
                bad = await session.call_tool("schedule_meeting", {"title": "No time"})
                seen["bad_arguments"] = {"is_error": bad.is_error, "text": text_of(bad)}
                search = await session.call_tool("search_content", {"query": "ship Friday"})
                seen["search"] = {
                    "is_error": search.is_error,
                    "speakers": [hit["speaker"] for hit in search.structured_content["hits"]],
                }
                templates = await session.list_resource_templates()
                seen["templates"] = [t.uri_template for t in templates.resource_templates]
    print(json.dumps(seen))


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
