// A thunderc model behind a bounded request queue served by N worker threads, one execution
// context each (a loaded model is immutable and shared; contexts are per caller).
//
//   service [--weights weights.bin] --inputs a.npy [b.npy ...] [--workers N] [--requests R]
//           [--queue Q] [--threads-per-worker T]
//
// The inputs are one request; request i scales every floating-point input by 1 + i/1024 (other
// inputs as given), so that each request has its own answer. The service first computes every
// answer single-threaded in one context, then serves the R requests from W workers fed by a
// queue of at most Q pending requests, and checks every response bit for bit against the
// single-threaded answer. Prints throughput and p50/p99 latency (enqueue to response); exits 1
// on any mismatch or failed call.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model.h"
#include "npy.h"

namespace {

using Clock = std::chrono::steady_clock;

/// One request: its inputs (owned buffers) and, once answered, its outputs.
struct Request {
  std::vector<std::vector<unsigned char>> inputData;
  std::vector<tc_tensor> inputs;
  std::vector<std::vector<unsigned char>> outputData;
  std::vector<tc_tensor> outputs;
  Clock::time_point enqueued;
  double latencyMs = 0.0;
};

size_t byteSize(const tc_tensor &tensor) {
  return static_cast<size_t>(tc_tensor_byte_size(&tensor));
}

/// Request `index` from the base inputs: floating-point inputs scaled by 1 + index / 1024.
Request makeRequest(const std::vector<tc_tensor> &base, int index) {
  Request request;
  for (const tc_tensor &input : base) {
    std::vector<unsigned char> bytes(byteSize(input));
    std::memcpy(bytes.data(), input.data, bytes.size());
    if (input.dtype == TC_DTYPE_F32) {
      auto *values = reinterpret_cast<float *>(bytes.data());
      for (size_t i = 0; i < bytes.size() / sizeof(float); ++i)
        values[i] *= 1.0f + static_cast<float>(index) / 1024.0f;
    }
    request.inputData.push_back(std::move(bytes));
  }
  for (size_t i = 0; i < base.size(); ++i) {
    tc_tensor tensor = base[i];
    tensor.data = request.inputData[i].data();
    request.inputs.push_back(tensor);
  }
  return request;
}

/// Allocates the request's outputs and runs it in `context`.
tc_status answer(model_context *context, Request &request, tc_error *err) {
  request.outputs.assign(static_cast<size_t>(model_num_outputs()), tc_tensor{});
  tc_status status =
      model_output_shapes(request.inputs.data(), static_cast<int>(request.inputs.size()),
                          request.outputs.data(), static_cast<int>(request.outputs.size()), err);
  if (status != TC_OK)
    return status;
  request.outputData.clear();
  for (tc_tensor &output : request.outputs) {
    request.outputData.emplace_back(byteSize(output));
    output.data = request.outputData.back().data();
  }
  return model_run(context, request.inputs.data(), static_cast<int>(request.inputs.size()),
                   request.outputs.data(), static_cast<int>(request.outputs.size()), err);
}

/// A bounded FIFO of request indices; pop() returns -1 once closed and drained.
class Queue {
public:
  explicit Queue(size_t capacity) : capacity_(capacity) {}
  void push(int index) {
    std::unique_lock<std::mutex> lock(mutex_);
    notFull_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(index);
    notEmpty_.notify_one();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    notEmpty_.notify_all();
  }
  int pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    notEmpty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty())
      return -1;
    int index = items_.front();
    items_.pop_front();
    notFull_.notify_one();
    return index;
  }

private:
  std::mutex mutex_;
  std::condition_variable notEmpty_, notFull_;
  std::deque<int> items_;
  size_t capacity_;
  bool closed_ = false;
};

double percentile(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end());
  size_t at = static_cast<size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(at, values.size() - 1)];
}

int usage(const char *message) {
  std::fprintf(stderr, "service: %s\nusage: service [--weights weights.bin] --inputs a.npy "
                       "[b.npy ...] [--workers N] [--requests R] [--queue Q] "
                       "[--threads-per-worker T]\n", message);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string weights = SERVICE_WEIGHTS;
  std::vector<std::string> inputFiles;
  int workers = 4, requests = 2000, queueSize = 64, threadsPerWorker = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto number = [&](int &target) {
      if (i + 1 >= argc || (target = std::atoi(argv[++i])) < 1)
        return false;
      return true;
    };
    if (arg == "--weights" && i + 1 < argc) {
      weights = argv[++i];
    } else if (arg == "--inputs") {
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0)
        inputFiles.push_back(argv[++i]);
    } else if (arg == "--workers") {
      if (!number(workers))
        return usage("--workers takes a count >= 1");
    } else if (arg == "--requests") {
      if (!number(requests))
        return usage("--requests takes a count >= 1");
    } else if (arg == "--queue") {
      if (!number(queueSize))
        return usage("--queue takes a count >= 1");
    } else if (arg == "--threads-per-worker") {
      if (!number(threadsPerWorker))
        return usage("--threads-per-worker takes a count >= 1");
    } else {
      return usage(("unknown argument '" + arg + "'").c_str());
    }
  }
  if (static_cast<int>(inputFiles.size()) != model_num_inputs())
    return usage(("the model takes " + std::to_string(model_num_inputs()) + " input(s), got " +
                  std::to_string(inputFiles.size()) + " file(s)").c_str());

  tc_error err;
  std::vector<tc_tensor> base(inputFiles.size());
  for (size_t i = 0; i < inputFiles.size(); ++i)
    if (tc_npy_read(inputFiles[i].c_str(), &base[i], &err) != TC_OK) {
      std::fprintf(stderr, "service: %s\n", err.message);
      return 1;
    }
  model_model *model = nullptr;
  if (model_load(weights.c_str(), &model, &err) != TC_OK) {
    std::fprintf(stderr, "service: %s\n", err.message);
    return 1;
  }

  // The answers, single-threaded, in one context.
  std::vector<Request> expected, served;
  for (int i = 0; i < requests; ++i) {
    expected.push_back(makeRequest(base, i));
    served.push_back(makeRequest(base, i));
  }
  {
    model_context *context = nullptr;
    tc_status status = model_context_create(model, &context, &err);
    if (status == TC_OK)
      status = model_context_set_num_threads(context, 1, &err);
    for (int i = 0; status == TC_OK && i < requests; ++i)
      status = answer(context, expected[static_cast<size_t>(i)], &err);
    model_context_destroy(context);
    if (status != TC_OK) {
      std::fprintf(stderr, "service: reference run: %s\n", err.message);
      return 1;
    }
  }

  // Serve: the main thread enqueues, the workers answer.
  Queue queue(static_cast<size_t>(queueSize));
  std::mutex failureMutex;
  std::string failure;
  std::vector<std::thread> threads;
  auto start = Clock::now();
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      tc_error local;
      model_context *context = nullptr;
      tc_status status = model_context_create(model, &context, &local);
      if (status == TC_OK)
        status = model_context_set_num_threads(context, threadsPerWorker, &local);
      for (int index; (index = queue.pop()) >= 0;) {
        Request &request = served[static_cast<size_t>(index)];
        if (status == TC_OK)
          status = answer(context, request, &local);
        request.latencyMs =
            std::chrono::duration<double, std::milli>(Clock::now() - request.enqueued).count();
      }
      model_context_destroy(context);
      if (status != TC_OK) {
        std::lock_guard<std::mutex> lock(failureMutex);
        failure = local.message;
      }
    });
  for (int i = 0; i < requests; ++i) {
    served[static_cast<size_t>(i)].enqueued = Clock::now();
    queue.push(i);
  }
  queue.close();
  for (std::thread &thread : threads)
    thread.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!failure.empty()) {
    std::fprintf(stderr, "service: a worker's run failed: %s\n", failure.c_str());
    return 1;
  }

  int mismatches = 0;
  std::vector<double> latencies;
  for (int i = 0; i < requests; ++i) {
    const Request &got = served[static_cast<size_t>(i)];
    mismatches += got.outputData == expected[static_cast<size_t>(i)].outputData ? 0 : 1;
    latencies.push_back(got.latencyMs);
  }
  std::printf("service: %d requests, %d workers x %d thread(s), queue %d: %.1f requests/s, "
              "latency p50 %.3f ms, p99 %.3f ms; %d mismatch(es) against the single-threaded "
              "answers\n",
              requests, workers, threadsPerWorker, queueSize, requests / seconds,
              percentile(latencies, 0.5), percentile(latencies, 0.99), mismatches);
  for (tc_tensor &tensor : base)
    tc_npy_free(&tensor);
  model_free(model);
  return mismatches == 0 ? 0 : 1;
}
