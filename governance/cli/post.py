"""`mlgov comment --post github`: the flags, and posting the rendered comment (post_comment.py).

The repository comes from `GITHUB_REPOSITORY`, the token from `GITHUB_TOKEN`, the API from
`GITHUB_API_URL` (GitHub Enterprise, or a local fake in tests; https://api.github.com when
unset), the pull request from `--pr N` or else the workflow's event payload
(`GITHUB_EVENT_PATH`). `--body-file` posts a comment rendered earlier (the judge workflow renders
it in one job and posts it from another, which holds the write token). Missing settings are
exit 2, each named; GitHub refusing or not answering is exit 4 (`Exit.CLOUD`), as for
`mlgov approvals`.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from governance.errors import CliError, Exit

MAX_BODY_BYTES = 4 * 1024 * 1024  # a rendered comment is at most 65,536 characters
MAX_EVENT_BYTES = 16 * 1024 * 1024


def add_flags(comment: Any) -> None:
    """Add `--post`, `--pr`, `--body-file` and `--comment-author` to the `comment` parser."""
    from governance.review.post_comment import BOT

    comment.add_argument(
        "--post",
        choices=["github"],
        help="also create or update mlgov's one comment on the pull request (GITHUB_TOKEN, "
        "GITHUB_REPOSITORY; GITHUB_API_URL for GitHub Enterprise)",
    )
    comment.add_argument(
        "--pr",
        type=int,
        metavar="N",
        help="the pull request to comment on (default: the one in the workflow's event payload, "
        "GITHUB_EVENT_PATH)",
    )
    comment.add_argument(
        "--body-file",
        metavar="FILE",
        help="with --post: post this comment, rendered earlier, instead of rendering one",
    )
    comment.add_argument(
        "--comment-author",
        default=BOT,
        metavar="LOGIN",
        help=f"the account the token comments as, whose marked comment is updated (default: "
        f"{BOT}, a workflow's GITHUB_TOKEN)",
    )


def body_file(args: argparse.Namespace) -> str | None:
    """The text of `--body-file` (None when not given); CliError when misused or unreadable."""
    if not args.body_file:
        return None
    if not args.post:
        raise CliError("--body-file posts a comment rendered earlier: it needs --post github")
    if args.stack or args.failed or args.base_failed or args.preview:
        raise CliError("--body-file posts a rendered comment: give it without plans to render")
    from governance.inputs.project import read_source

    text, _ = read_source(args.body_file, MAX_BODY_BYTES)
    return text


def _pull_request(args: argparse.Namespace) -> int:
    if args.pr is not None:
        if args.pr <= 0:
            raise CliError(f"--pr {args.pr}: a pull request number is positive")
        return int(args.pr)
    from governance.review.post_comment import pr_number

    path = os.environ.get("GITHUB_EVENT_PATH", "")
    number: int | None = None
    if path:
        from governance.inputs.project import read_source
        from governance.untrusted import UntrustedInputError, load_json

        text, _ = read_source(path, MAX_EVENT_BYTES)
        try:
            number = pr_number(load_json(text))
        except UntrustedInputError as err:
            raise CliError(f"GITHUB_EVENT_PATH {path}: {err}") from None
    if number is None:
        where = f"the event payload {path} names none" if path else "GITHUB_EVENT_PATH is unset"
        raise CliError(f"--post github needs the pull request: pass --pr N ({where})")
    return number


def post(args: argparse.Namespace, text: str) -> None:
    """Post `text` as mlgov's comment where `args` and the environment say; a line on stderr."""
    import sys

    from governance.review.judge.github import GitHubError
    from governance.review.post_comment import post_comment

    token = os.environ.get("GITHUB_TOKEN", "")
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    missing = [
        f"{name} is not set: {why}"
        for name, value, why in (
            ("GITHUB_TOKEN", token, "a token that may write to pull requests"),
            ("GITHUB_REPOSITORY", repo, "OWNER/REPO of the pull request"),
        )
        if not value
    ]
    if missing:
        raise CliError([f"--post github: {m}" for m in missing])
    number = _pull_request(args)
    try:
        posted = post_comment(
            text,
            repo,
            number,
            token=token,
            api=os.environ.get("GITHUB_API_URL", ""),
            author=args.comment_author,
        )
    except GitHubError as err:
        raise CliError(f"--post github: {err}", Exit.CLOUD) from None
    where = f": {posted.url}" if posted.url else ""
    print(f"mlgov: {posted.action} the comment on {repo}#{number}{where}", file=sys.stderr)
