"""`appliance network [--write DIR]`: the systemd drop-in that lets the service reach Home Assistant only."""

from __future__ import annotations

import argparse
from typing import Final

from appliance import EXIT_OK

RESTART: Final = "sudo systemctl daemon-reload && sudo systemctl restart appliance"


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from appliance.cli import add_common
    from appliance.setup.network import DROPIN, UNIT_DIR

    parser = sub.add_parser(
        "network", help="print or write the drop-in that lets the service reach Home Assistant, and only it",
        description="The service has no network (PrivateNetwork=yes). With home_assistant enabled, this "
        f"makes the drop-in {DROPIN} that lets it reach the host of home_assistant.url (its addresses, "
        "resolved now), localhost and the DNS servers needed to look that host up, and nothing else. "
        "With home_assistant off, no drop-in is needed, and --write removes one.")
    parser.add_argument("--write", metavar="DIR",
                        help=f"write (or remove) the drop-in under this unit folder ({UNIT_DIR}); "
                        "else print it")
    add_common(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    from appliance.cli import load_config
    from appliance.setup import network

    cfg = load_config(args)
    peer = network.peer(cfg.home_assistant.url) if cfg.home_assistant.enabled else None
    text = None if peer is None else network.dropin_text(peer, cfg.source)
    if args.write is None:
        print(text if text is not None else "home_assistant is off: the service has no network "
              "(PrivateNetwork=yes), and no drop-in is needed.", end="" if text else "\n")
        return EXIT_OK
    path = f"{args.write.rstrip('/')}/{network.DROPIN}"
    done = network.write(args.write, text)
    if peer is not None:
        reach = f"{peer.host} ({', '.join(peer.addresses)})" if peer.named else peer.host
        dns = f", the DNS servers {', '.join(peer.remote_resolvers)}" if peer.remote_resolvers else ""
        if peer.allowed == ("localhost",):
            reach = f"Home Assistant at {reach} on this machine"
        else:
            reach = f"Home Assistant at {reach}, localhost{dns}"
        print(f"{path} {'is up to date' if done == 'unchanged' else 'written'}: the service may reach "
              f"{reach} and nothing else.")
    elif done == "removed":
        print(f"removed {path}: home_assistant is off, so the service has no network.")
    else:
        print(f"home_assistant is off: no drop-in is needed (there is none at {path}).")
    if done in ("written", "removed"):
        print(f"then: {RESTART}")
    return EXIT_OK
