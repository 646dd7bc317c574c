#!/usr/bin/env bash
# Reproduces the shipped calibration data in calibration/kernels/ (see calibration/README.md).
# Takes about half an hour on a 2-core machine; run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
P2PSIM=${P2PSIM:-./build/p2psim}
# The paper's models at the input sizes its code used (paper-system.md §2), the CIFAR variants and the MNIST CNN.
"$P2PSIM" calibrate -m vgg11@3x32x32 -m squeezenet1_1@3x21x21 -m mobilenet_v3_small@3x29x29 \
  -m vgg11_cifar@3x32x32 -m resnet18_cifar@3x32x32 -m mnist_cnn@1x28x28 \
  --batch-sizes 16,32,64,128,256,512,1024 --threads 1,2 --repeats 5 --min-repeats 2 --budget-s 20 \
  -o calibration/kernels/step_and_tensor_ops.csv
# MobileNetV2 at 224x224 takes ~30 s per 64-sample step on one thread: batches up to 128 only.
"$P2PSIM" calibrate -m mobilenet_v2@3x224x224 --batch-sizes 16,32,64,128 --threads 1,2 \
  --repeats 3 --min-repeats 2 --budget-s 20 --no-tensor-ops -o calibration/kernels/mobilenet_v2_224.csv
