#include "tb.h"
#include <cstring>
#include <cstdlib>

static int words_of(int width) { return (width + 31) / 32; }

static void port_set(const FerrocePort& p, const uint32_t* w) {
    if (p.width <= 8) *(uint8_t*)p.ptr = (uint8_t)w[0];
    else if (p.width <= 16) *(uint16_t*)p.ptr = (uint16_t)w[0];
    else if (p.width <= 32) *(uint32_t*)p.ptr = w[0];
    else if (p.width <= 64) *(uint64_t*)p.ptr = (uint64_t)w[0] | ((uint64_t)w[1] << 32);
    else std::memcpy(p.ptr, w, 4 * words_of(p.width));
}

static void port_get(const FerrocePort& p, uint32_t* w) {
    if (p.width <= 8) w[0] = *(uint8_t*)p.ptr;
    else if (p.width <= 16) w[0] = *(uint16_t*)p.ptr;
    else if (p.width <= 32) w[0] = *(uint32_t*)p.ptr;
    else if (p.width <= 64) { uint64_t v = *(uint64_t*)p.ptr; w[0] = (uint32_t)v; w[1] = (uint32_t)(v >> 32); }
    else std::memcpy(w, p.ptr, 4 * words_of(p.width));
}

static void set1(const FerrocePort& p, uint32_t v) { uint32_t w[64] = {0}; w[0] = v; port_set(p, w); }

// Inputs are set and the model evaluated: rising edge, then clock back low.
static void tick_settled(FerroceModel* m) {
    m->trace_dump(m->time * 2);
    set1(m->ports[m->clock], 1);
    m->eval();
    m->trace_dump(m->time * 2 + 1);
    set1(m->ports[m->clock], 0);
    m->time++;
}

extern "C" {

FerroceModel* ferroce_model_new(const char* name);

void ferroce_model_free(FerroceModel* m) { delete m; }
int ferroce_model_port_count(FerroceModel* m) { return (int)m->ports.size(); }
const char* ferroce_model_port_name(FerroceModel* m, int i) { return m->ports[i].name; }
int ferroce_model_port_width(FerroceModel* m, int i) { return m->ports[i].width; }
int ferroce_model_port_dir(FerroceModel* m, int i) { return m->ports[i].dir; }
void ferroce_model_set(FerroceModel* m, int i, const uint32_t* w) { port_set(m->ports[i], w); }
void ferroce_model_get(FerroceModel* m, int i, uint32_t* w) { m->eval(); port_get(m->ports[i], w); }
void ferroce_model_eval(FerroceModel* m) { m->eval(); }
void ferroce_model_peek(FerroceModel* m, int i, uint32_t* w) { port_get(m->ports[i], w); }
void ferroce_model_tick(FerroceModel* m) { tick_settled(m); }
void ferroce_model_step(FerroceModel* m, uint64_t n) { for (uint64_t i = 0; i < n; i++) { m->eval(); tick_settled(m); } }
void ferroce_model_trace(FerroceModel* m, const char* path) { m->trace_open(path); }

}  // extern "C"
