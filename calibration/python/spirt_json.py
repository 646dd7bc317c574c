#!/usr/bin/env python3
"""Times what SPIRT's code does to a gradient as JSON text, on one core of this machine, so that p2psim's `spirt`
design can charge it (platforms/aws_us_east_1.xml, kv_store/json_codec). SPIRT's functions
(https://github.com/AmineBarrak/TrainingML_P2P_Serverless at 16ebf1793c4d25d2ed8f9b76e06442085b8fa062,
SPIRT/Functions/compute_gradients.zip, lambda_function.py) write each gradient into the peer's Redis as
`json.dumps(gradients.tolist())` of the flat float32 torch tensor; its averaging function
(Trigger_Average_Gradient_sync.zip) runs a Lua script inside Redis that LRANGEs the iteration's list, decodes every
string with cjson, adds them element by element, divides and returns `cjson.encode` of the average, which the function
turns back into numbers with `np.array(json.loads(result), dtype=np.float32)`. Five kernels, written again here from
that description (a dozen lines each):
  encode           json.dumps(t.tolist()) of a torch tensor, as a function does (the tolist included)
  decode_gradient  np.array(json.loads(text), dtype=np.float32) of that text (repr's 17 digits: what a peer that
                   averages the functions' gradients itself parses)
  decode_average   the same of the average as cjson writes it (%.14g, no spaces), as the averaging function does:
                   about half the time an element of the above, its numbers shorter
  lua_average_1    the Lua script over one gradient in a Redis server of its own (its time: Redis's SLOWLOG, the
                   server's own, without the reply's trip), i.e. a decode, the division and an encode
  lua_average_4    the same over four: the difference from lua_average_1 is three decodes and additions
The gradient is a real one: MobileNetV3-small's (torchvision, 10 classes, SPIRT's model), after one backward pass on
64 random 3 x 28 x 28 inputs with seed 0, written once to a temporary .npy that every sample reads; how long its text
is depends on its values (the digits of each float), so the file records the bytes per element too.

Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py; the Redis server is its
child, on the same core, and its CPU counts as the sample's own), paired with one of SeBS's zip kernel
(calibration/python/paired_stand_in.py): the file's last line is the median of the pairs' ratios, kernel over zip,
which the zip's time on the calibration CPU brings there (all five are scalar work: an interpreter's loops, float
formatting and parsing).
  /usr/bin/python3 calibration/python/spirt_json.py --kernel KERNEL \
      --zip-data DIR/300.utilities/311.compression/acmart-master [--out FILE] [--samples 61] [--quiet-zip-s 0.2171]
  /usr/bin/python3 calibration/python/spirt_json.py --derive [--kernels calibration/kernels]
needs python3-torch and python3-torchvision (the gradient, the encode), redis-server and python3-redis (the Lua
kernels); --derive only reads the five files and prints the profile's constants."""
import argparse
import os
import re
import sys
import tempfile

import paired_stand_in
from lambda_cpu_speed import deciles

KERNELS = ("encode", "decode_gradient", "decode_average", "lua_average_1", "lua_average_4")
LUA_GRADIENTS = {"lua_average_1": 1, "lua_average_4": 4}

# The averaging script, as SPIRT's does it: decode each string, add element by element, divide, encode.
LUA_AVERAGE = """
local texts = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local sum = cjson.decode(texts[1])
for i = 2, #texts do
  local gradient = cjson.decode(texts[i])
  for j = 1, #gradient do sum[j] = sum[j] + gradient[j] end
end
for j = 1, #sum do sum[j] = sum[j] / #texts end
return cjson.encode(sum)
"""

# Every child prints its seconds, the gradient's elements and the bytes of the text it encoded or decoded.
CHILDREN = {
    "encode": """
import json, time
import numpy as np
import torch
t = torch.from_numpy(np.load({gradient!r}))
begin = time.perf_counter()
text = json.dumps(t.tolist())
print(time.perf_counter() - begin, t.numel(), len(text))
""",
    "decode_gradient": """
import json, time
import numpy as np
text = json.dumps(np.load({gradient!r}).tolist())
begin = time.perf_counter()
average = np.array(json.loads(text), dtype=np.float32)
print(time.perf_counter() - begin, average.size, len(text))
""",
    "decode_average": """
import json, time
import numpy as np
values = np.load({gradient!r}).tolist()
text = "[" + ",".join("%.14g" % v for v in values) + "]"
begin = time.perf_counter()
average = np.array(json.loads(text), dtype=np.float32)
print(time.perf_counter() - begin, average.size, len(text))
""",
    "lua": """
import json, os, subprocess, tempfile, time
import numpy as np
import redis
text = json.dumps(np.load({gradient!r}).tolist())
with tempfile.TemporaryDirectory() as folder:
    socket = os.path.join(folder, "redis.sock")
    server = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", socket, "--save", "", "--appendonly",
                               "no", "--slowlog-log-slower-than", "0", "--slowlog-max-len", "8"],
                              stdout=subprocess.DEVNULL)
    try:
        client = redis.Redis(unix_socket_path=socket)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.01)
        for _ in range({gradients}):
            client.rpush("gradients", text)
        sha = client.script_load({script!r})
        client.slowlog_reset()
        average = client.evalsha(sha, 1, "gradients", {gradients})
        entries = [e for e in client.slowlog_get(8) if str(e["command"]).upper().lstrip("B'\\"").startswith("EVALSHA")]
        seconds = entries[0]["duration"] / 1e6
    finally:
        server.terminate()
        server.wait()
print(seconds, len(json.loads(average)), len(text))
""",
}


def child_code(kernel, gradient_path):
    """The Python a sample of `kernel` runs, reading the gradient at `gradient_path`."""
    if kernel in LUA_GRADIENTS:
        return CHILDREN["lua"].format(gradient=gradient_path, gradients=LUA_GRADIENTS[kernel], script=LUA_AVERAGE)
    return CHILDREN[kernel].format(gradient=gradient_path)


def write_gradient(path):
    """MobileNetV3-small's flat gradient (10 classes, one backward pass on 64 random 3 x 28 x 28 inputs, seed 0) as a
    float32 .npy at `path`. Returns its elements."""
    import numpy as np
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v3_small(num_classes=10)
    inputs, labels = torch.randn(64, 3, 28, 28), torch.randint(0, 10, (64,))
    torch.nn.functional.cross_entropy(model(inputs), labels).backward()
    gradient = torch.cat([p.grad.reshape(-1) for p in model.parameters()]).numpy()
    np.save(path, gradient)
    return gradient.size


def kernel_file(kernels_dir, kernel):
    return os.path.join(kernels_dir, f"spirt_json_{kernel}.txt")


def measure(args):
    with tempfile.TemporaryDirectory(prefix="spirt-json-") as folder:
        gradient_path = os.path.join(folder, "gradient.npy")
        elements = write_gradient(gradient_path)
        code = child_code(args.kernel, gradient_path)
        text_bytes = []

        def write(pairs, retried):
            details = (f"MobileNetV3-small's gradient, {elements:,} float32 elements; the text "
                       f"{text_bytes[0]:,} bytes ({text_bytes[0] / elements:.4f} an element)")
            return paired_stand_in.write_pairs_file(args.out, args.kernel, f"SPIRT's JSON kernel '{args.kernel}'",
                                                    "spirt_json.py", details, pairs, retried)

        # The text's length, from one untimed sample (the same every time: the same gradient).
        out = paired_stand_in.quiet_sample(code, max(os.sched_getaffinity(0)))[0].split()
        if int(out[1]) != elements:
            print(f"error: the kernel saw {out[1]} elements, not the gradient's {elements}", file=sys.stderr)
            return 1
        text_bytes.append(int(out[2]))
        return paired_stand_in.run(args, code, write)


def file_numbers(path):
    """(elements, text bytes, median ratio, p10 ratio, p90 ratio) of a kernel file, or ValueError naming it."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"gradient, ([0-9,]+) float32 elements; the text ([0-9,]+) bytes", text)
    if not m:
        raise ValueError(f"{path}: no '... gradient, N float32 elements; the text B bytes' line")
    pairs = re.findall(r"^([0-9.]+) ([0-9.]+) [0-9.]+ [0-9.]+$", text, re.M)
    if len(pairs) < 3 or any(float(zip_s) <= 0 for _, zip_s in pairs):
        raise ValueError(f"{path}: fewer than 3 pairs, or a zip of no time")
    p10, _, p90 = deciles([float(kernel) / float(zip_s) for kernel, zip_s in pairs])
    return (int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")),
            paired_stand_in.pairs_file_ratio(path), p10, p90)


def derive(kernels_dir):
    """The profile's kv_store/json_codec constants from the five kernel files: each kernel's ratio over the zip times
    the zip's seconds on the calibration CPU, per element. Returns the lines to print."""
    zip_s = paired_stand_in.zip_on_calibration_cpu_s(kernels_dir)
    n = {k: file_numbers(kernel_file(kernels_dir, k)) for k in KERNELS}
    if len({v[0] for v in n.values()}) != 1:
        raise ValueError("the files timed gradients of different sizes")
    elements = n["encode"][0]
    per_element = lambda ratio: ratio * zip_s / elements
    one, four = n["lua_average_1"], n["lua_average_4"]
    # Three more decodes and additions from one gradient to four; one text's time less a decode and addition is its
    # division and encode less one addition (its first text is taken, not added), so n texts take n x decode_add +
    # encode, exactly at one and at four.
    decode_add = [(four[i] - one[2]) / 3 for i in (2, 3, 4)]
    encode = [one[i] - (four[2] - one[2]) / 3 for i in (2, 3, 4)]
    rows = [("python_encode_s_per_element_on_reference_cpu", [per_element(r) for r in n["encode"][2:]]),
            ("python_decode_gradient_s_per_element_on_reference_cpu", [per_element(r) for r in n["decode_gradient"][2:]]),
            ("python_decode_average_s_per_element_on_reference_cpu", [per_element(r) for r in n["decode_average"][2:]]),
            ("lua_decode_add_s_per_element_on_reference_cpu", [per_element(r) for r in decode_add]),
            ("lua_encode_s_per_element_on_reference_cpu", [per_element(r) for r in encode])]
    lines = [f"zip on the calibration CPU: {zip_s} s; {elements:,} elements"]
    lines += [f"{name}: {v[0]:.4g} (p10 {v[1]:.4g}, p90 {v[2]:.4g})" for name, v in rows]
    lines.append(f"python_bytes_per_element: {n['encode'][1] / elements:.4f}")
    lines.append(f"lua_bytes_per_element: {n['decode_average'][1] / elements:.4f}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--derive", action="store_true", help="print the profile's constants from the five files")
    parser.add_argument("--kernels", default="calibration/kernels", help="where the files are (--derive)")
    parser.add_argument("--kernel", choices=KERNELS)
    if "--derive" in sys.argv:
        return paired_stand_in.derive_main(parser, derive)
    paired_stand_in.add_common_options(parser, out="")
    args = parser.parse_args()
    if not args.kernel:
        print("error: --kernel is required (or --derive)", file=sys.stderr)
        return 2
    args.out = args.out or kernel_file("calibration/kernels", args.kernel)
    error = paired_stand_in.option_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return measure(args)


if __name__ == "__main__":
    sys.exit(main())
