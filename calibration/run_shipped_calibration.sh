#!/usr/bin/env bash
# Reproduces the shipped calibration data in calibration/kernels/ (see calibration/README.md). One file per
# group, so that an interrupted run loses one group only. Run it on an otherwise idle machine: a sample during
# whose window (itself and the untimed runs before it, at least 0.5 s) other processes took more than 10 % of
# the CPUs is measured again (up to 10 times), and the .meta.json says how many were. About 50 minutes on
# 2 cores. OUT=dir writes elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
P2PSIM=${P2PSIM:-./build/p2psim}
out=${OUT:-calibration/kernels}
# Allocator: glibc keeps freed activations mapped instead of returning them to the kernel after every step.
# On the shipped calibration machine (a nested, paravirtualised VM) each page fault costs about 22 us, 20-50x
# what it costs on a normal VM, and with glibc's defaults a large-batch step is mostly page faults
# (bench/allocator.sh: mnist_cnn batch 512 takes 5.5 s with the defaults, 0.42 s with these settings, 258,609
# faults per step). Those faults are this host's, not the target's: on your own target, calibrate with the
# defaults (unset these) and its real fault cost is measured. Each .meta.json records the allocator.
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 MALLOC_TOP_PAD_=536870912
# The CPU's effective clock (a chain of dependent adds), from which the profile's <cpu_reference> score is
# inferred (platforms/aws_us_east_1.xml): measured before and after the timings, beside them. A VM's clock
# moves with its host's load (2026-12-05: 4.30 GHz right after the timings, 4.46-4.47 minutes later).
# x86-64 only (one add per cycle is an x86 property); elsewhere the file says so.
clock_bin=$(mktemp) resnet_bin=$(mktemp)
trap 'rm -f "$clock_bin" "$resnet_bin"' EXIT
measure_clock() {
  if [ "$(uname -m)" != x86_64 ]; then echo "# $1: not measured, $(uname -m) is not x86-64" >> "$out/effective_clock.txt"; return; fi
  [ -s "$clock_bin" ] || c++ -O2 -o "$clock_bin" calibration/tools/effective_clock.cpp
  { echo "# $1: calibration/tools/effective_clock.cpp, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(grep -m1 'model name' /proc/cpuinfo)"
    "$clock_bin" 15 | tail -1; } >> "$out/effective_clock.txt"
}
: > "$out/effective_clock.txt"
measure_clock "before the timings"
steps="--threads 1,2 --repeats 5 --min-repeats 2 --budget-s 20 --no-tensor-ops"
all_batches=1,2,4,8,16,32,64,128,256,512,1024
# The paper's models at the input sizes its code used, and the CIFAR variant of VGG-11.
"$P2PSIM" calibrate -m vgg11@3x32x32 -m squeezenet1_1@3x21x21 -m vgg11_cifar@3x32x32 --batch-sizes $all_batches \
  $steps -o "$out/train_steps_paper.csv"
# MobileNetV3-small batch-normalises a 1x1 feature map at 29x29 input: it cannot train on one sample.
"$P2PSIM" calibrate -m mobilenet_v3_small@3x29x29 --batch-sizes 2,4,8,16,32,64,128,256,512,1024 $steps \
  -o "$out/train_steps_mobilenet_v3_small.csv"
"$P2PSIM" calibrate -m mnist_cnn@1x28x28 --batch-sizes $all_batches $steps -o "$out/train_steps_mnist_cnn.csv"
"$P2PSIM" calibrate -m quickstart_mlp@1x28x28 --batch-sizes $all_batches $steps -o "$out/train_steps_quickstart_mlp.csv"
# A PyTorch trainer's input pipeline (ToTensor and collate) per input shape, where Python's torchvision is installed
# (Debian's python3-torch and python3-torchvision); about 5 minutes.
if /usr/bin/python3 -c "import torchvision" 2>/dev/null; then
  /usr/bin/python3 calibration/python/input_pipeline.py --out "$out/input_pipeline.csv"
else
  echo "skipped input_pipeline.csv: no python3-torchvision" >&2
fi
# The paper's function's imports on one core, a cold function's runtime import (the profile's cold_start), where
# its Python modules are installed; about 30 seconds.
if /usr/bin/python3 -c "import torch, torchvision, boto3, pika, dill" 2>/dev/null; then
  /usr/bin/python3 calibration/python/function_imports.py --out "$out/function_imports.txt"
else
  echo "skipped function_imports.txt: needs python3-torch, -torchvision, -boto3, -pika and -dill" >&2
fi
# Lambda's x86 vCPU against this CPU: SeBS's zip kernel here, then over SeBS's Lambda timings. Both need published
# data this script does not download (calibration/README.md says where): set SEBS_DATA to serverless-benchmarks-data's
# 300.utilities/311.compression/acmart-master and SEBS_RESULTS to the artifact's aws_perf_cost/311/perf-cost.
if [ -n "${SEBS_DATA:-}" ] && [ -n "${SEBS_RESULTS:-}" ]; then
  /usr/bin/python3 calibration/python/sebs_zip_compression.py --data "$SEBS_DATA" --out "$out/sebs_zip_compression.txt"
  /usr/bin/python3 calibration/python/lambda_cpu_speed.py --sebs-results "$SEBS_RESULTS" \
    --local "$out/sebs_zip_compression.txt" --out "$out/lambda_x86_cpu_speed.txt"
else
  echo "skipped sebs_zip_compression.txt and lambda_x86_cpu_speed.txt: set SEBS_DATA and SEBS_RESULTS" >&2
fi
# SeBS 411.image-recognition's work on the calibration CPU, the stand-in of validation/sebs/sebs_resnet50_inference_*
# (validation cases: they set nothing): its image's transforms (set SEBS_IMAGE to serverless-benchmarks-data's
# 400.inference/411.image-recognition/fake-resnet/800px-Porsche_991_silver_IAA.jpg) and ResNet-50's forward pass.
if [ -n "${SEBS_IMAGE:-}" ]; then
  /usr/bin/python3 calibration/python/sebs_image_preprocess.py --image "$SEBS_IMAGE" --out "$out/sebs_image_preprocess.txt"
else
  echo "skipped sebs_image_preprocess.txt: set SEBS_IMAGE" >&2
fi
if [ -f /usr/include/torch/csrc/api/include/torch/torch.h ]; then
  c++ -O2 -std=c++17 calibration/tools/resnet50_inference.cpp -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu \
    -lc10 -o "$resnet_bin"
  { echo "# ResNet-50's forward pass on one 3x224x224 image with autograd on, its softmax and sort (SeBS 411.image-recognition's model call) on this host (cpu_identity below): calibration/tools/resnet50_inference.cpp, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# cpu_identity: $(cd calibration/python && /usr/bin/python3 -c 'from cpu_identity import cpu_identity; print(cpu_identity())')"
    echo "# LibTorch $(dpkg-query -W -f='${Version}' libtorch-dev) (Debian's libtorch-dev), eval mode, autograd on, random weights; this script's allocator settings; SeBS's functions: PyTorch 1.0.1.post2 (CPU wheel), Python 3.7"
    "$resnet_bin" 41; } > "$out/sebs_resnet50_inference.txt"
else
  echo "skipped sebs_resnet50_inference.txt: no libtorch-dev" >&2
fi
# SeBS 503.graph-bfs's handler, each sample paired with SeBS's zip kernel (SEBS_DATA, above): the stand-in of
# validation/sebs/sebs_graph_bfs_* (validation cases: they set nothing). Needs python3-igraph.
if [ -n "${SEBS_DATA:-}" ] && /usr/bin/python3 -c "import igraph" 2>/dev/null; then
  /usr/bin/python3 calibration/python/sebs_graph_bfs.py --zip-data "$SEBS_DATA" --out "$out/sebs_graph_bfs.txt"
else
  echo "skipped sebs_graph_bfs.txt: set SEBS_DATA and install python3-igraph" >&2
fi
# ClassiFaaS's gemm in Node.js, each sample paired with SeBS's zip kernel (SEBS_DATA, above): the stand-in of
# validation/classifaas/classifaas_gemm_* (validation cases: they set nothing). Needs nodejs.
if [ -n "${SEBS_DATA:-}" ] && { command -v node || command -v nodejs; } > /dev/null; then
  /usr/bin/python3 calibration/python/classifaas_gemm.py --zip-data "$SEBS_DATA" --out "$out/classifaas_gemm.txt"
else
  echo "skipped classifaas_gemm.txt: set SEBS_DATA and install nodejs" >&2
fi
# C. Ebert's memory-intensive Python workload, each sample paired with SeBS's zip kernel (SEBS_DATA, above): the stand-in
# of validation/cebert/cebert_sort_* (validation cases: they set nothing). About 8.5 s a sample.
if [ -n "${SEBS_DATA:-}" ]; then
  /usr/bin/python3 calibration/python/cebert_memory_sort.py --zip-data "$SEBS_DATA" --out "$out/cebert_memory_sort.txt" \
    --quiet-zip-s 0.2171
else
  echo "skipped cebert_memory_sort.txt: set SEBS_DATA" >&2
fi
# Averaging and compression on tensors of each model's gradient size.
"$P2PSIM" calibrate -m vgg11 -m vgg11_cifar -m resnet18_cifar -m squeezenet1_1 -m mobilenet_v3_small \
  -m mobilenet_v2 -m mnist_cnn --no-train-steps --threads 1,2 --repeats 5 --min-repeats 2 --budget-s 10 \
  -o "$out/tensor_ops.csv"
# Serialisation of each model's gradient (torch::save / torch::load to and from memory), on one thread.
"$P2PSIM" calibrate -m vgg11 -m vgg11_cifar -m resnet18_cifar -m squeezenet1_1 -m mobilenet_v3_small \
  -m mobilenet_v2 -m mnist_cnn --no-train-steps --serialization-only --threads 1 --repeats 5 --min-repeats 3 \
  --budget-s 10 -o "$out/serialization.csv"
# ResNet-18-CIFAR takes seconds per 64-sample step on one thread: batches up to 256.
"$P2PSIM" calibrate -m resnet18_cifar@3x32x32 --batch-sizes 1,2,4,8,16,32,64,128,256 $steps \
  -o "$out/train_steps_resnet18_cifar.csv"
# MobileNetV2 at 224x224 takes tens of seconds per 64-sample step: batches up to 64, 3 samples at most.
"$P2PSIM" calibrate -m mobilenet_v2@3x224x224 --batch-sizes 1,2,4,8,16,32,64 --threads 1,2 --repeats 3 \
  --min-repeats 2 --budget-s 20 --no-tensor-ops -o "$out/train_steps_mobilenet_v2_224.csv"
measure_clock "after the timings"
# Peak memory with glibc's defaults, as a PyTorch user has them: keeping freed memory (above) raises the peak
# by up to 40 % (vgg11_cifar batch 1024: 2,523 MiB against 1,789 MiB), so memory comes from these runs, one
# per configuration, one thread (train_step_memory rows; their time is not a timing sample).
unset MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_ MALLOC_TOP_PAD_
m="--threads 1 --warmup 1 --no-tensor-ops --memory-only"
"$P2PSIM" calibrate -m vgg11@3x32x32 -m squeezenet1_1@3x21x21 -m vgg11_cifar@3x32x32 -m mnist_cnn@1x28x28 \
  --batch-sizes $all_batches $m -o "$out/train_steps_memory.csv"
"$P2PSIM" calibrate -m mobilenet_v3_small@3x29x29 --batch-sizes 2,4,8,16,32,64,128,256,512,1024 $m \
  -o "$out/train_steps_memory_mobilenet_v3_small.csv"
"$P2PSIM" calibrate -m resnet18_cifar@3x32x32 --batch-sizes 1,2,4,8,16,32,64,128,256 $m \
  -o "$out/train_steps_memory_resnet18_cifar.csv"
"$P2PSIM" calibrate -m mobilenet_v2@3x224x224 --batch-sizes 1,2,4,8,16,32,64 $m \
  -o "$out/train_steps_memory_mobilenet_v2_224.csv"
"$P2PSIM" calibrate -m quickstart_mlp@1x28x28 --batch-sizes $all_batches $m \
  -o "$out/train_steps_memory_quickstart_mlp.csv"
