// Ferroce co-simulation harness: a Verilator model behind a port table, driven from Rust.
#pragma once
#include <cstdint>
#include <vector>

struct FerrocePort {
    const char* name;
    int width;   // bits
    int dir;     // 0 input, 1 output
    void* ptr;   // CData/SData/IData/QData or VlWide words
};

struct FerroceModel {
    virtual ~FerroceModel() {}
    virtual void eval() = 0;
    virtual void trace_open(const char* path) = 0;
    virtual void trace_dump(uint64_t t) = 0;
    std::vector<FerrocePort> ports;
    int clock = -1;
    uint64_t time = 0;
};
