#!/usr/bin/python3
"""Checks of the documents: README.md and docs/ say what the code does, and no document keeps a journal.

    check_docs.py CHECK --repo DIR [--dmlbench EXE] [--without-torch] [--control]
    check_docs.py papers --repo DIR --dmlbench EXE --write     README.md's papers table rewritten from `dmlbench papers`

CHECK is one of:
  readme-length  README.md has at most README_MAX_LINES lines
  links          every relative link of README.md and docs/**/*.md names a file or folder that exists
  commands       each `dmlbench SUB...` that README.md names exists: `dmlbench SUB... --help` exits 0 with its own
                 usage line (with --without-torch, a LibTorch command may instead answer that this build has none)
  papers         README.md's papers table is the output of `dmlbench papers`
  examples       each block after "<!-- example: PATH -->" in README.md and docs/**/*.md is the file PATH verbatim,
                 and every tests/extend/example_* file is shown in one
  journal        no file under STOP_SCANNED says "stop <number>" (or "stops"), and no document or source under
                 ISSUE_SCANNED says "issue <number>" (or "issues", "issue-<number>"): history is in git

With --control the check runs on a doctored copy of the files it reads instead, and passes only if the check fails
there naming what was doctored: each check's negative control.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ---- What the journal check scans: widen these lists as more of the tree is made clean ----
# Every file git tracks under these paths: none may say "stop <number>" (a development stop).
STOP_SCANNED = ["README.md", "CHANGELOG.md", "CMakeLists.txt", "docs", "bench", "experiments", "theory", "sims",
                "notebooks", "tests", "scripts", "apps"]
# The files git tracks under these paths whose names end in ISSUE_SCANNED_SUFFIXES: none may say "issue <number>" (a
# ticket): the documents, the sources, the scripts, the build files (CMakeLists.txt), the configs, reproductions, scope
# files and fixtures (.json) and the notebooks. reports/ is generated from the runs and the scope files, and is not
# scanned.
ISSUE_SCANNED = ["README.md", "CHANGELOG.md", "CMakeLists.txt", "docs", "bench", "experiments", "theory", "sims",
                 "notebooks", "tests", "scripts", "apps"]
ISSUE_SCANNED_SUFFIXES = (".md", ".cpp", ".hpp", ".py", ".sh", ".txt", ".json", ".ipynb")

README_MAX_LINES = 200
STOP = re.compile(r"\bstops? \d+", re.IGNORECASE)
ISSUE = re.compile(r"\bissues?[ -]\d+", re.IGNORECASE)
PAPERS_MARK = "<!-- papers: the output of `dmlbench papers` -->"
EXAMPLE_MARK = re.compile(r"<!-- example: (\S+) -->\n```[a-z]*\n")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def docs_files(repo):
    """README.md and every Markdown file under docs/, relative to the repository."""
    out = ["README.md"]
    for base, dirs, files in os.walk(os.path.join(repo, "docs")):
        dirs.sort()
        out += [os.path.relpath(os.path.join(base, f), repo) for f in sorted(files) if f.endswith(".md")]
    return out


def without_code(text):
    """The text with fenced blocks and inline code spans blanked (a link there is an example, not a link)."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


# ---- the checks: each returns a list of problems, empty when it passes ----

def check_readme_length(repo, args):
    n = len(read(os.path.join(repo, "README.md")).splitlines())
    return [] if n <= README_MAX_LINES else [f"README.md has {n} lines, more than {README_MAX_LINES}"]


def check_links(repo, args):
    bad = []
    for rel in docs_files(repo):
        text = without_code(read(os.path.join(repo, rel)))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, or an anchor of the same page
            path = target.split("#", 1)[0]
            if not os.path.exists(os.path.normpath(os.path.join(repo, os.path.dirname(rel), path))):
                bad.append(f"{rel}: the link ({target}) names no file")
    return bad


def readme_commands(readme):
    """The `dmlbench SUB...` commands README.md names: code spans that start with `dmlbench` (or a path to it), and
    lines of fenced blocks that do; the words after it up to the first option, value or path."""
    fenced = re.findall(r"```.*?```", readme, flags=re.DOTALL)
    lines = [line.strip() for block in fenced for line in block.splitlines()]
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", readme, flags=re.DOTALL))
    found = []
    for text in lines + spans:
        m = re.match(r"(?:\S*/)?dmlbench((?: [a-z][a-z0-9]*(?:-[a-z0-9]+)*)+)", text)
        if m and m.group(1).split() not in found:
            found.append(m.group(1).split())
    return found


def check_commands(repo, args):
    if not args.dmlbench:
        return ["the commands check needs --dmlbench EXE"]
    commands = readme_commands(read(os.path.join(repo, "README.md")))
    if not commands:
        return ["README.md names no `dmlbench ...` command"]
    bad = []
    for words in commands:
        r = subprocess.run([args.dmlbench] + words + ["--help"], capture_output=True, text=True)
        usage = re.compile(r"^Usage: \S*dmlbench " + re.escape(" ".join(words)) + r"(?: |$)", re.MULTILINE)
        if r.returncode == 0 and usage.search(r.stdout):
            continue  # its own help (an unknown word gets the parent's help, exit status 0)
        if args.without_torch and "built without LibTorch" in r.stdout + r.stderr:
            continue  # a LibTorch command: it exists, and this build has no module to run it
        out = (r.stderr.strip() or r.stdout.strip()).splitlines()
        said = f"exits {r.returncode}" + (f": {out[-1]}" if out and r.returncode else "")
        if r.returncode == 0:
            said = "prints no help of its own (" + next((l for l in out if l.startswith("Usage:")), "no usage") + ")"
        bad.append(f"README.md names `dmlbench {' '.join(words)}`, whose --help {said}")
    return bad


def readme_papers(readme):
    at = readme.find(PAPERS_MARK)
    if at < 0:
        return None
    lines = readme[at + len(PAPERS_MARK):].lstrip("\n").splitlines()
    table = []
    for line in lines:
        if not line.startswith("|"):
            break
        table.append(line)
    return "\n".join(table) + "\n"


def check_papers(repo, args):
    if not args.dmlbench:
        return ["the papers check needs --dmlbench EXE"]
    held = readme_papers(read(os.path.join(repo, "README.md")))
    if held is None:
        return [f"README.md has no papers table after {PAPERS_MARK}"]
    made = subprocess.run([args.dmlbench, "papers"], capture_output=True, text=True, check=True).stdout
    if held == made:
        return []
    held_keys = re.findall(r"^\| \[([^]]+)\]", held, flags=re.MULTILINE)
    made_keys = re.findall(r"^\| \[([^]]+)\]", made, flags=re.MULTILINE)
    if held_keys != made_keys:
        return [f"README.md lists the papers {held_keys}, `dmlbench papers` {made_keys}"]
    for a, b in zip(held.splitlines(), made.splitlines()):
        if a != b:
            return [f"README.md's papers table differs from `dmlbench papers`:\n  README: {a}\n  papers: {b}"]
    return ["README.md's papers table differs from `dmlbench papers` in its length"]


def write_papers(repo, args):
    """README.md's papers table replaced by the output of `dmlbench papers` (after a paper is registered)."""
    path = os.path.join(repo, "README.md")
    text = read(path)
    held = readme_papers(text)
    if held is None:
        raise SystemExit(f"README.md has no papers table after {PAPERS_MARK}")
    made = subprocess.run([args.dmlbench, "papers"], capture_output=True, text=True, check=True).stdout
    at = text.find(PAPERS_MARK)
    start = text.find(held, at)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:start] + made + text[start + len(held):])
    print(f"README.md: the papers table is `dmlbench papers`' output ({len(made.splitlines()) - 2} papers)")


def example_blocks(text):
    """(path, block) of every "<!-- example: PATH -->" followed by a fenced block."""
    out = []
    for m in EXAMPLE_MARK.finditer(text):
        close = text.find("\n```", m.end() - 1)
        out.append((m.group(1), None if close < 0 else text[m.end():close + 1]))
    return out


def check_examples(repo, args):
    bad, shown = [], set()
    for rel in docs_files(repo):
        for path, block in example_blocks(read(os.path.join(repo, rel))):
            shown.add(path)
            if block is None:
                bad.append(f"{rel}: the block of {path} is not closed")
                continue
            if not os.path.isfile(os.path.join(repo, path)):
                bad.append(f"{rel}: shows {path}, which is no file")
                continue
            text = read(os.path.join(repo, path))
            if block != text:
                a, b = block.splitlines(), text.splitlines()
                line = next((k for k, (x, y) in enumerate(zip(a, b), 1) if x != y), min(len(a), len(b)) + 1)
                bad.append(f"{rel}: the block of {path} differs from the file at line {line}")
    extend = os.path.join(repo, "tests", "extend")
    for f in sorted(os.listdir(extend)):
        if f.startswith("example_") and f"tests/extend/{f}" not in shown:
            bad.append(f"tests/extend/{f} is shown in no document")
    return bad


def tracked_files(repo, paths):
    """The files git tracks under `paths` (every file there when the folder is no git checkout)."""
    r = subprocess.run(["git", "-C", repo, "ls-files", "-z", "--"] + paths, capture_output=True, text=True)
    if r.returncode == 0:
        return sorted(f for f in r.stdout.split("\0") if f and os.path.isfile(os.path.join(repo, f)))
    out = []
    for p in paths:
        full = os.path.join(repo, p)
        if os.path.isfile(full):
            out.append(p)
        for base, dirs, files in os.walk(full):
            out += [os.path.relpath(os.path.join(base, f), repo) for f in files]
    return sorted(out)


def check_journal(repo, args):
    bad = []
    for rel in tracked_files(repo, STOP_SCANNED):
        try:
            text = read(os.path.join(repo, rel))
        except UnicodeDecodeError:
            continue  # a binary file (a fuzz input, an image)
        for k, line in enumerate(text.splitlines(), 1):
            if STOP.search(line):
                bad.append(f"{rel}:{k}: \"{STOP.search(line).group(0)}\" (a development stop: history is in git)")
    for rel in tracked_files(repo, ISSUE_SCANNED):
        if not rel.endswith(ISSUE_SCANNED_SUFFIXES):
            continue
        try:
            text = read(os.path.join(repo, rel))
        except UnicodeDecodeError:
            continue  # not text (a fuzz input saved under a scanned suffix)
        for k, line in enumerate(text.splitlines(), 1):
            if ISSUE.search(line):
                bad.append(f"{rel}:{k}: \"{ISSUE.search(line).group(0)}\" (a ticket: history is in git)")
    return bad


# ---- the negative controls: a doctored copy the check must refuse, naming what was doctored ----

def copy_of(repo, tmp, paths):
    """A copy of the files `paths` (and, for folders, everything under them) of the repository in `tmp`."""
    for p in paths:
        src, dst = os.path.join(repo, p), os.path.join(tmp, p)
        if os.path.isdir(src):
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git", "build*"))
        elif os.path.exists(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
    return tmp


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def doctor_readme_length(repo, tmp):
    copy_of(repo, tmp, ["README.md"])
    n = len(read(os.path.join(tmp, "README.md")).splitlines())
    append(os.path.join(tmp, "README.md"), "padding\n" * (README_MAX_LINES + 1 - n))
    return f"README.md has {README_MAX_LINES + 1} lines"


def doctor_links(repo, tmp):
    copy_of(repo, tmp, ["README.md", "docs"])
    append(os.path.join(tmp, "docs", "verdicts.md"), "\nSee [the missing page](no-such-page.md).\n")
    return "docs/verdicts.md: the link (no-such-page.md) names no file"


def doctor_commands(repo, tmp):
    copy_of(repo, tmp, ["README.md"])
    append(os.path.join(tmp, "README.md"), "\n`dmlbench no-such-command` does nothing.\n")
    return "`dmlbench no-such-command`, whose --help prints no help of its own"


def doctor_papers(repo, tmp):
    copy_of(repo, tmp, ["README.md"])
    path = os.path.join(tmp, "README.md")
    text = read(path)
    table = readme_papers(text)
    last = table.splitlines()[-1]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(last + "\n", "", 1))  # the last registered paper left out
    return "README.md lists the papers"


def doctor_examples(repo, tmp):
    copy_of(repo, tmp, ["README.md", "docs", "tests/extend"])
    path = os.path.join(tmp, "docs", "extend", "loss.md")
    text = read(path)
    at = text.find("<!-- example: tests/extend/example_loss.cpp -->")
    at = text.find("namespace", at)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:at] + "Namespace" + text[at + len("namespace"):])
    return "docs/extend/loss.md: the block of tests/extend/example_loss.cpp differs from the file at line"


def doctor_journal(repo, tmp):
    source, build = "theory/src/paper_registry.cpp", "CMakeLists.txt"  # a source and a build file beside the documents
    copy_of(repo, tmp, ["README.md", "docs", source, build])
    # spelled apart, so that this file passes the check itself
    stop, issue, ticket, named = "stop" + " 12", "issue" + " 34", "issues" + " 35", "issue" + "-36"
    append(os.path.join(tmp, "docs", "testing.md"), f"\nThe suite last ran at {stop}, for {issue}.\n")
    append(os.path.join(tmp, source), f"// kept apart for {ticket}\n")
    append(os.path.join(tmp, build), f"# as the {named} session left it\n")
    return ["docs/testing.md", f"\"{stop}\"", f"\"{issue}\"", f"{source}:", f"\"{ticket}\"", f"{build}:",
            f"\"{named}\""]


CHECKS = {
    "readme-length": (check_readme_length, doctor_readme_length),
    "links": (check_links, doctor_links),
    "commands": (check_commands, doctor_commands),
    "papers": (check_papers, doctor_papers),
    "examples": (check_examples, doctor_examples),
    "journal": (check_journal, doctor_journal),
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("check", choices=sorted(CHECKS))
    p.add_argument("--repo", required=True)
    p.add_argument("--dmlbench")
    p.add_argument("--without-torch", action="store_true")
    p.add_argument("--control", action="store_true")
    p.add_argument("--write", action="store_true", help="papers only: rewrite README.md's table")
    args = p.parse_args()
    if args.write:
        if args.check != "papers" or not args.dmlbench:
            p.error("--write rewrites the papers table: give it with papers and --dmlbench")
        write_papers(args.repo, args)
        return 0
    check, doctor = CHECKS[args.check]
    if not args.control:
        bad = check(args.repo, args)
        for b in bad:
            print(b, file=sys.stderr)
        print(f"{args.check}: {'FAILED, ' + str(len(bad)) + ' problem(s)' if bad else 'passed'}")
        return 1 if bad else 0
    with tempfile.TemporaryDirectory() as tmp:
        expected = doctor(args.repo, tmp)
        expected = expected if isinstance(expected, list) else [expected]
        bad = check(tmp, args)
    said = "\n".join(bad)
    missing = [e for e in expected if e not in said]
    if not bad or missing:
        print(f"{args.check} control FAILED: the doctored copy gave "
              + (f"{len(bad)} problem(s) without {missing}" if bad else "no problem"), file=sys.stderr)
        for b in bad:
            print("  " + b, file=sys.stderr)
        return 1
    print(f"{args.check} control: the doctored copy is refused ({bad[0].splitlines()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
