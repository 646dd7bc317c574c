#!/usr/bin/env python3
"""Times SeBS 411.image-recognition's work around the model on one core of this machine: opening the input image
and torchvision's Resize(256), CenterCrop(224), ToTensor and Normalize, done here with PIL and numpy as torchvision
0.2.1 does them on a PIL image (a bilinear resize of the shorter side to 256, a centred 224 x 224 crop, bytes / 255
as float32 in C x H x W, then (x - mean) / std per channel). SeBS timed this and the ResNet-50 forward pass together
(`compute_time`) on AWS Lambda in 2020; the forward pass is timed by calibration/tools/resnet50_inference.cpp, and
the two together are the stand-in step of the validation cases validation/sebs/sebs_resnet50_inference_*mb.

The image: spcl/serverless-benchmarks-data, 400.inference/411.image-recognition/fake-resnet/
800px-Porsche_991_silver_IAA.jpg (61,010 bytes, 800 x 533; val_map.txt's class 817, the class every call of SeBS's
2020 runs returned). Each sample is a fresh interpreter pinned to one core (calibration/python/pinned_sample.py):
  /usr/bin/python3 calibration/python/sebs_image_preprocess.py --image FILE [--out calibration/kernels/sebs_image_preprocess.txt]
"""
import argparse
import os
import sys

import PIL

from pinned_sample import quiet_sample, write_timing_file

IMAGE_BYTES = 61010

# SeBS's handler from its process_begin timer to the model call: Image.open and the transforms.
CHILD = """
import time
import numpy as np
from PIL import Image
Image.preinit()  # the image plugins' imports, which a warm call of SeBS's function had made before its timer
t = time.perf_counter()
image = Image.open({path!r})
w, h = image.size
size = (256, int(256 * h / w)) if w < h else (int(256 * w / h), 256)  # torchvision 0.2.1's Resize(256)
image = image.resize(size, Image.BILINEAR)
w, h = image.size
left, top = int(round((w - 224) / 2.0)), int(round((h - 224) / 2.0))
image = image.crop((left, top, left + 224, top + 224))
x = np.asarray(image, dtype=np.uint8).transpose(2, 0, 1).astype(np.float32) / 255
mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1)
std = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1)
x = (x - mean) / std
print(time.perf_counter() - t, x.shape)
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", required=True, help="800px-Porsche_991_silver_IAA.jpg of serverless-benchmarks-data")
    parser.add_argument("--out", default="calibration/kernels/sebs_image_preprocess.txt")
    parser.add_argument("--samples", type=int, default=41)
    args = parser.parse_args()
    if not os.path.isfile(args.image) or os.path.getsize(args.image) != IMAGE_BYTES:
        print(f"error: --image {args.image}: not SeBS's 61,010-byte input image", file=sys.stderr)
        return 2
    core = max(os.sched_getaffinity(0))
    code = CHILD.format(path=os.path.abspath(args.image))
    quiet_sample(code, core)  # untimed: the page cache
    samples, retried = [], 0
    for _ in range(args.samples):
        stdout, foreign, again = quiet_sample(code, core)
        retried += again
        samples.append((float(stdout.split()[0]), foreign))
    print(write_timing_file(
        args.out, "SeBS 411.image-recognition's image work (open, Resize 256, CenterCrop 224, ToTensor, Normalize) on "
        "one core of this host (cpu_identity below): calibration/python/sebs_image_preprocess.py",
        f"Python {sys.version.split()[0]}, Pillow {PIL.__version__} (SeBS's functions: Pillow 6.1, torchvision 0.2.1)",
        samples, retried, digits=4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
