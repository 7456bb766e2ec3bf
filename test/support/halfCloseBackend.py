"""A backend on Python's `websockets` (Debian: python3-websockets), as a third party would write one.

On a message over its limit, `websockets` closes with 1009 and half-closes TCP at once (RFC 6455
lets the server close first), then waits its close timeout before dropping the socket; the
conformance kit must read the 1009 whatever the TCP close order. It speaks just enough of the
protocol for the size check: hello is answered with welcome and toolGroupState. Prints
{"event": "listening", "port": N} once it listens. Usage: python3 halfCloseBackend.py LIMIT_BYTES
"""
import asyncio
import json
import sys

import websockets

LIMIT = int(sys.argv[1])


async def handler(ws, path=None):
    async for raw in ws:
        if json.loads(raw).get("type") == "hello":
            await ws.send(json.dumps({
                "type": "welcome", "protocol": "client-tools/1", "sessionId": "python-half-close", "resumed": False,
                "server": {"name": "python-half-close", "version": "1", "model": {"name": "none", "offline": True}},
                "limits": {"maxMessageBytes": LIMIT, "maxInFlight": 8, "invokeTimeoutMs": 30000},
            }))
            await ws.send(json.dumps({"type": "toolGroupState", "collapsing": True, "groups": []}))


async def main():
    async with websockets.serve(handler, "127.0.0.1", 0, max_size=LIMIT, subprotocols=["client-tools.v1"]) as server:
        print(json.dumps({"event": "listening", "port": server.sockets[0].getsockname()[1]}), flush=True)
        await asyncio.Future()


asyncio.run(main())
