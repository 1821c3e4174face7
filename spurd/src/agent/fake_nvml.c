/* A fake libnvidia-ml for tests, built with `cc -shared -fPIC`. It has
 * GPUs named "NVIDIA H200": two with minor numbers 3 and 1, or as many as
 * FAKE_NVML_GPUS says (minor numbers 0, 1, ...), and is strict about the
 * order of init and shutdown. The processes it reports on its GPUs are
 * the lines of the file FAKE_NVML_PROCS names, read on every call:
 * "GPU PID MEMORY_BYTES SM_PERCENT" (-DFAKE_PROCS_FILE='"path"' names a
 * file for when the variable is unset). Other -D switches make it fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64
static int initialised = 0;
static int devices[MAX_GPUS];

static int gpu_count(void) {
    const char *n = getenv("FAKE_NVML_GPUS");
    int count = n ? atoi(n) : 2;
    return count < 0 ? 0 : count > MAX_GPUS ? MAX_GPUS : count;
}

static int minor_of(int index) {
    if (!getenv("FAKE_NVML_GPUS")) return index == 0 ? 3 : 1;
    return index;
}

static int index_of(void *device) {
    int index = (int *)device - devices;
    return index >= 0 && index < gpu_count() ? index : -1;
}

#ifndef FAKE_NO_ERROR_STRING
const char *nvmlErrorString(int rc) {
    switch (rc) {
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}
#endif
int nvmlInit_v2(void) {
#ifdef FAKE_INIT_FAILS
    return 9;
#endif
    initialised++;
    return 0;
}
int nvmlShutdown(void) {
    if (!initialised) return 1;
    initialised--;
    return 0;
}
int nvmlDeviceGetCount_v2(unsigned int *count) {
    if (!initialised) return 1;
    if (!count) return 2;
    *count = gpu_count();
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device) {
    if (!initialised) return 1;
    if ((int)index >= gpu_count() || !device) return 2;
    *device = &devices[index];
    return 0;
}
int nvmlDeviceGetName(void *device, char *name, unsigned int length) {
    if (!initialised) return 1;
    if (index_of(device) < 0 || !name || length < 96) return 2;
    strncpy(name, "NVIDIA H200", length);
    return 0;
}
#ifndef FAKE_NO_MINOR
int nvmlDeviceGetMinorNumber(void *device, unsigned int *minor) {
    if (!initialised) return 1;
    int index = index_of(device);
    if (index < 0 || !minor) return 2;
    *minor = minor_of(index);
    return 0;
}
#endif

/* nvmlProcessInfo_t (v2) and nvmlProcessUtilizationSample_t. */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} process_info;
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} utilization_sample;

/* Calls `each` for every line of FAKE_NVML_PROCS about GPU `index`. */
static void processes_on(int index, void (*each)(void *, unsigned, unsigned long long, unsigned),
                         void *arg) {
    const char *path = getenv("FAKE_NVML_PROCS");
#ifdef FAKE_PROCS_FILE
    if (!path) path = FAKE_PROCS_FILE;
#endif
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f) return;
    int gpu;
    unsigned pid, util;
    unsigned long long mem;
    while (fscanf(f, "%d %u %llu %u", &gpu, &pid, &mem, &util) == 4)
        if (gpu == index) each(arg, pid, mem, util);
    fclose(f);
}

struct fill { unsigned count, room; process_info *infos; utilization_sample *samples; };

static void add_info(void *arg, unsigned pid, unsigned long long mem, unsigned util) {
    struct fill *f = arg;
    (void)util;
    if (f->infos && f->count < f->room) {
        f->infos[f->count].pid = pid;
        f->infos[f->count].usedGpuMemory = mem;
        f->infos[f->count].gpuInstanceId = 0xFFFFFFFF;
        f->infos[f->count].computeInstanceId = 0xFFFFFFFF;
    }
    f->count++;
}

static void add_sample(void *arg, unsigned pid, unsigned long long mem, unsigned util) {
    struct fill *f = arg;
    (void)mem;
    if (f->samples && f->count < f->room) {
        memset(&f->samples[f->count], 0, sizeof f->samples[f->count]);
        f->samples[f->count].pid = pid;
        f->samples[f->count].timeStamp = 1;
        f->samples[f->count].smUtil = util;
    }
    f->count++;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *device, unsigned int *count, process_info *infos) {
    if (!initialised) return 1;
    int index = index_of(device);
    if (index < 0 || !count) return 2;
    struct fill f = {0, infos ? *count : 0, infos, NULL};
    processes_on(index, add_info, &f);
    int fits = f.count <= f.room;
    *count = f.count;
    return fits ? 0 : 7;
}

int nvmlDeviceGetProcessUtilization(void *device, utilization_sample *samples, unsigned int *count,
                                    unsigned long long last_seen) {
    (void)last_seen;
    if (!initialised) return 1;
    int index = index_of(device);
    if (index < 0 || !count) return 2;
    struct fill f = {0, samples ? *count : 0, NULL, samples};
    processes_on(index, add_sample, &f);
    if (f.count == 0) return 6; /* NVML_ERROR_NOT_FOUND: no samples */
    int fits = f.count <= f.room;
    *count = f.count;
    return fits ? 0 : 7;
}
