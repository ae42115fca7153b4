"""One module per `appliance` subcommand: add_parser(subparsers) and main(args) -> exit code."""
