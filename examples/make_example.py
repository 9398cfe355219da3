"""Writes examples/claude_code_session.jsonl: a realistic Claude Code session made for the project."""
import base64
import hashlib
import json
import random
import struct
import uuid
import zlib

rnd = random.Random(7)
SESSION = "5f0c2a9e-3b7d-4e21-9c55-0d7e1a2b3c4d"
CWD = "/home/dev/projects/invoice-service"
t0 = [0]
def ts():
    t0[0] += 7
    m, s = divmod(t0[0], 60)
    return f"2026-11-28T10:{m:02d}:{s:02d}.000Z"
def uid(i): return str(uuid.UUID(int=rnd.getrandbits(128)))
parent = [None]
lines = []
def base(typ):
    u = uid(0)
    rec = {"parentUuid": parent[0], "isSidechain": False, "userType": "external", "cwd": CWD,
           "sessionId": SESSION, "version": "2.1.9", "gitBranch": "fix/rounding", "type": typ}
    parent[0] = u
    return rec, u
def user(content, **extra):
    rec, u = base("user")
    rec["message"] = {"role": "user", "content": content}
    rec.update(extra)
    rec["uuid"] = u
    rec["timestamp"] = ts()
    lines.append(rec)
msg_n = [0]
def assistant(blocks, same_message=False):
    if not same_message:
        msg_n[0] += 1
    for b in blocks:
        rec, u = base("assistant")
        rec["message"] = {"model": "claude-sonnet-4-5-20250929", "id": f"msg_01Example{msg_n[0]:04d}", "type": "message",
                          "role": "assistant", "content": [b], "stop_reason": None, "stop_sequence": None,
                          "usage": {"input_tokens": 1200, "output_tokens": 180}}
        rec["requestId"] = f"req_011Example{msg_n[0]:04d}"
        rec["uuid"] = u
        rec["timestamp"] = ts()
        lines.append(rec)
call_n = [0]
def tool_use(name, inp):
    call_n[0] += 1
    return {"type": "tool_use", "id": f"toolu_01Ex{call_n[0]:06d}AbCdEf", "name": name, "input": inp}
def tool_result(call, content, tur, is_error=False):
    block = {"tool_use_id": call["id"], "type": "tool_result", "content": content}
    if is_error:
        block["is_error"] = True
    user([block], toolUseResult=tur)
def thinking(text):
    sig = base64.b64encode(hashlib.sha512(text.encode()).digest() * 6).decode()
    return {"type": "thinking", "thinking": text, "signature": sig}

def png(w, h):
    raw = b"".join(b"\x00" + bytes(rnd.randrange(256) for _ in range(w * 3)) for _ in range(h))
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")

lines.append({"type": "summary", "summary": "Fix invoice rounding bug", "leafUuid": "00000000-0000-4000-8000-000000000001"})
user("The invoice totals are off by a cent for some customers. Please find and fix the rounding bug in "
     "`src/invoices/totals.py`. You must keep the public API of `compute_total` unchanged, and never push to main. "
     "Always run the full test suite with `pytest -q` before you say you are done.\n\n"
     "<key_info>Customer ACME-4471 reported invoice INV-2026-0192: expected 1034.56 EUR, got 1034.55 EUR. "
     "Tax rate 19%, 7 line items.</key_info>")
assistant([thinking("The user reports a one-cent discrepancy. Classic float rounding: summing floats then rounding, "
                    "or rounding per line vs per total. I should look at totals.py and run the tests first to see "
                    "what fails. " + "Let me reason about banker's rounding versus ROUND_HALF_UP in Decimal. " * 40)])
assistant([{"type": "text", "text": "I'll start by running the test suite to see the current state."}], same_message=True)
todo = tool_use("TodoWrite", {"todos": [
    {"content": "Reproduce the rounding bug with a failing test", "status": "in_progress", "activeForm": "Reproducing"},
    {"content": "Fix rounding in compute_total using Decimal", "status": "pending", "activeForm": "Fixing rounding"},
    {"content": "Run full test suite", "status": "pending", "activeForm": "Running tests"}]})
assistant([todo], same_message=True)
tool_result(todo, "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
            {"oldTodos": [], "newTodos": todo["input"]["todos"]})
c1 = tool_use("Bash", {"command": "cd /home/dev/projects/invoice-service && pytest -q", "description": "Run the test suite"})
assistant([c1])
passing = "".join(f"tests/test_{m}.py::test_{m}_{i} PASSED{' ' * (30 - len(m))}[{(i * 3) % 100:3d}%]\n"
                  for m in ("customers", "currency", "pdf_render", "email") for i in range(40))
fail = ("=================================== FAILURES ===================================\n"
        "__________________________ test_total_matches_acme_invoice __________________________\n\n"
        "    def test_total_matches_acme_invoice():\n        items = load_fixture('acme_4471.json')\n"
        ">       assert compute_total(items, tax_rate=0.19) == Decimal('1034.56')\n"
        "E       AssertionError: assert Decimal('1034.55') == Decimal('1034.56')\n\n"
        "tests/test_totals.py:42: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_totals.py::test_total_matches_acme_invoice - AssertionError: assert Decimal('1034.55') == Decimal('1034.56')\n"
        "1 failed, 160 passed in 3.21s\n")
out1 = passing + fail
tool_result(c1, "Exit code 1\n" + out1, {"stdout": out1, "stderr": "", "interrupted": False, "isImage": False}, is_error=True)
c2 = tool_use("Read", {"file_path": CWD + "/src/invoices/totals.py"})
assistant([{"type": "text", "text": "One failure reproduces the report. Let me read the totals module."}, c2])
src_lines = ['"""Invoice totals."""', "from decimal import Decimal, ROUND_HALF_EVEN", "", "",
             "def line_total(item):", "    return round(item['qty'] * item['unit_price'], 2)", "", "",
             "def compute_total(items, tax_rate):", "    subtotal = sum(line_total(i) for i in items)",
             "    tax = round(subtotal * tax_rate, 2)", "    return Decimal(str(subtotal + tax)).quantize(Decimal('0.01'), rounding=ROUND_HALF_EVEN)"]
src_lines += [f"# helper {i}: formatting for locale variant {i} keeps two decimals and a thousands separator" for i in range(120)]
numbered = "".join(f"{n:6d}\u2192{line}\n" for n, line in enumerate(src_lines, 1))
tool_result(c2, numbered, {"type": "text", "file": {"filePath": CWD + "/src/invoices/totals.py", "content": "\n".join(src_lines),
                                                   "numLines": len(src_lines), "startLine": 1, "totalLines": len(src_lines)}})
assistant([thinking("Floats: qty * unit_price as float, round() uses banker's rounding on binary floats. "
                    "Fix: use Decimal throughout with ROUND_HALF_UP per line and on tax. " * 25)])
assistant([{"type": "text", "text": "The bug: line totals are rounded as binary floats with banker's rounding. "
            "I decided to switch to Decimal with ROUND_HALF_UP instead of float round(), keeping `compute_total`'s signature."}],
          same_message=True)
new = ("def line_total(item):\n    q = Decimal(str(item['qty'])) * Decimal(str(item['unit_price']))\n"
       "    return q.quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)")
c3 = tool_use("Edit", {"file_path": CWD + "/src/invoices/totals.py",
                       "old_string": "def line_total(item):\n    return round(item['qty'] * item['unit_price'], 2)",
                       "new_string": new})
assistant([c3])
tool_result(c3, f"The file {CWD}/src/invoices/totals.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
            + "".join(f"{n:6d}\u2192{line}\n" for n, line in enumerate(new.splitlines(), 5)),
            {"filePath": CWD + "/src/invoices/totals.py", "oldString": c3["input"]["old_string"], "newString": new,
             "originalFile": "\n".join(src_lines), "structuredPatch": [], "userModified": False, "replaceAll": False})
shot = base64.b64encode(png(96, 64)).decode()
user([{"type": "text", "text": "Here is the screenshot of the invoice the customer sent. Don't change the PDF layout."},
      {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}}])
assistant([{"type": "text", "text": "Thanks, the PDF shows 1034.56 EUR as expected. I will not touch the PDF layout. Running the tests again."}])
c4 = tool_use("Bash", {"command": "pytest -q", "description": "Run the test suite again"})
assistant([c4])
out2 = passing + "161 passed in 3.08s\n"
tool_result(c4, out2, {"stdout": out2, "stderr": "", "interrupted": False, "isImage": False})
c5 = tool_use("Grep", {"pattern": "round\\(", "path": "src/", "output_mode": "content"})
assistant([{"type": "text", "text": "All green. Checking for other float rounding call sites."}, c5])
tool_result(c5, "src/invoices/credit_notes.py:18:    return round(amount * rate, 2)\nsrc/reports/monthly.py:77:    total = round(total, 2)",
            {"mode": "content", "numFiles": 2, "filenames": ["src/invoices/credit_notes.py", "src/reports/monthly.py"],
             "content": "src/invoices/credit_notes.py:18:    return round(amount * rate, 2)\nsrc/reports/monthly.py:77:    total = round(total, 2)", "numLines": 2})
user("Should credit notes get the same fix? Also prefer small commits.")
assistant([{"type": "text", "text": "Yes: credit notes use the same float rounding, so they can be off by a cent too. "
            "I'll apply the same Decimal fix in `src/invoices/credit_notes.py` in a separate commit."}])
c6 = tool_use("Bash", {"command": "git checkout -b fix/rounding && git add -p src/invoices/totals.py && git commit -m 'Use Decimal rounding for invoice lines'",
                       "description": "Commit the totals fix on a branch"})
assistant([c6])
tool_result(c6, "Switched to a new branch 'fix/rounding'\n[fix/rounding 3f9c2d1] Use Decimal rounding for invoice lines\n 1 file changed, 3 insertions(+), 1 deletion(-)",
            {"stdout": "Switched to a new branch 'fix/rounding'\n[fix/rounding 3f9c2d1] Use Decimal rounding for invoice lines\n 1 file changed, 3 insertions(+), 1 deletion(-)", "stderr": "", "interrupted": False, "isImage": False})
lines.append({"type": "system", "subtype": "turn_duration", "durationMs": 48211, "timestamp": ts(), "uuid": uid(0), "isMeta": False})
user("Great. Now fix the credit notes too and run the tests again.")
with open("examples/claude_code_session.jsonl", "w", encoding="utf-8") as fh:
    for rec in lines:
        fh.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
print(len(lines), "lines")
