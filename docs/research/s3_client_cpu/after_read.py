"""What GradsSharding's reducer does to a gradient after its read, timed per byte on one core.

The reducer (experiments/lambda_deployment/lambda_function.py of AmineBarrak/Serverless-aggregation-grads-sharding
at e1edcf1) runs, per client: body = get_object(...)['Body'].read(); grad = np.load(io.BytesIO(body));
np.add(running_sum, grad, out=running_sum); and at the end np.save(buf, result); buf.getvalue() before its PUT.
This times those three steps on float32 arrays of the sizes its VGG-16 sweep moves (M = 16, 4, 1).

Usage: python3 after_read.py [CPU]   (pins itself to CPU, default 1; prints ns per byte, medians of 7)
"""
import io
import os
import statistics
import sys
import time

import numpy as np


def per_byte_ns(seconds, nbytes):
    return statistics.median(seconds) / nbytes * 1e9


def main():
    os.sched_setaffinity(0, {int(sys.argv[1]) if len(sys.argv) > 1 else 1})
    rng = np.random.default_rng(1)
    print("gradient_mb,np_load_ns_per_byte,np_add_ns_per_byte,np_save_ns_per_byte")
    for megabytes in (33.6, 134.3, 537.2):
        grad = rng.random(int(megabytes * 1e6 / 4), dtype=np.float32)
        buf = io.BytesIO()
        np.save(buf, grad)
        body = buf.getvalue()
        running_sum = grad.copy()
        load_s, add_s, save_s = [], [], []
        for _ in range(7):
            t0 = time.perf_counter()
            loaded = np.load(io.BytesIO(body))
            t1 = time.perf_counter()
            np.add(running_sum, loaded, out=running_sum)
            t2 = time.perf_counter()
            out = io.BytesIO()
            np.save(out, running_sum)
            saved = out.getvalue()
            t3 = time.perf_counter()
            del loaded, out, saved
            load_s.append(t1 - t0)
            add_s.append(t2 - t1)
            save_s.append(t3 - t2)
        n = len(body)
        print(f"{megabytes},{per_byte_ns(load_s, n):.3f},{per_byte_ns(add_s, n):.3f},{per_byte_ns(save_s, n):.3f}")


if __name__ == "__main__":
    main()
