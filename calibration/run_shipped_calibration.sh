#!/usr/bin/env bash
# Reproduces the shipped calibration data in calibration/kernels/ (see calibration/README.md).
# One file per group, so that an interrupted run loses one group only. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
P2PSIM=${P2PSIM:-./build/p2psim}
steps="--threads 1,2 --repeats 5 --min-repeats 2 --budget-s 20 --no-tensor-ops"
# The paper's models at the input sizes its code used (paper-system.md §2) and the CIFAR variant of VGG-11.
# (train_steps_part1.csv holds these, salvaged from the first run: see its .meta.json.)
[ -f calibration/kernels/train_steps_part1.csv ] || "$P2PSIM" calibrate -m vgg11@3x32x32 -m squeezenet1_1@3x21x21 \
  -m mobilenet_v3_small@3x29x29 -m vgg11_cifar@3x32x32 --batch-sizes 16,32,64,128,256,512,1024 $steps \
  -o calibration/kernels/train_steps_part1.csv
# The MNIST CNN, and ResNet-18-CIFAR (1.5 s per 64-sample step on one thread: batches up to 256).
"$P2PSIM" calibrate -m mnist_cnn@1x28x28 --batch-sizes 16,32,64,128,256,512,1024 $steps \
  -o calibration/kernels/train_steps_mnist_cnn.csv
"$P2PSIM" calibrate -m resnet18_cifar@3x32x32 --batch-sizes 256 $steps -o calibration/kernels/train_steps_resnet18_cifar_256.csv
# Averaging and compression on tensors of each model's gradient size.
"$P2PSIM" calibrate -m vgg11 -m vgg11_cifar -m resnet18_cifar -m squeezenet1_1 -m mobilenet_v3_small \
  -m mobilenet_v2 -m mnist_cnn --no-train-steps --threads 1,2 --repeats 5 --min-repeats 2 --budget-s 10 \
  -o calibration/kernels/tensor_ops.csv
# MobileNetV2 at 224x224 takes ~30 s per 64-sample step on one thread: batches up to 128 only.
"$P2PSIM" calibrate -m mobilenet_v2@3x224x224 --batch-sizes 16,32,64,128 --threads 1,2 \
  --repeats 3 --min-repeats 2 --budget-s 20 --no-tensor-ops -o calibration/kernels/train_steps_mobilenet_v2_224.csv
# Peak memory of each step, for the files above that predate the memory columns: one memory run per
# configuration, one thread (train_step_memory rows; their time is not a timing sample).
m="--threads 1 --warmup 1 --no-tensor-ops"
"$P2PSIM" calibrate -m vgg11@3x32x32 -m squeezenet1_1@3x21x21 -m mobilenet_v3_small@3x29x29 -m vgg11_cifar@3x32x32 \
  -m mnist_cnn@1x28x28 --batch-sizes 16,32,64,128,256,512,1024 $m --memory-only -o calibration/kernels/train_steps_memory.csv
"$P2PSIM" calibrate -m resnet18_cifar@3x32x32 --batch-sizes 16,32,64,128,256 $m --memory-only \
  -o calibration/kernels/train_steps_memory_resnet18_cifar.csv
"$P2PSIM" calibrate -m mobilenet_v2@3x224x224 --batch-sizes 16,32,64 $m --memory-only \
  -o calibration/kernels/train_steps_memory_mobilenet_v2_224.csv
