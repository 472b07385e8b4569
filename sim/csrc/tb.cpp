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

static uint32_t bit0(const FerrocePort& p) { uint32_t w[64]; port_get(p, w); return w[0] & 1; }
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
void ferroce_model_step(FerroceModel* m, uint64_t n) { for (uint64_t i = 0; i < n; i++) { m->eval(); tick_settled(m); } }
void ferroce_model_trace(FerroceModel* m, const char* path) { m->trace_open(path); }

struct FerroceStream {
    // Port indices. The source drives valid + payload and reads ready; the sink drives ready and
    // reads valid + payload.
    int src_valid, src_ready, n_src; const int* src_ports;
    int snk_valid, snk_ready, n_snk; const int* snk_ports;
    // Percent chance per cycle that the source idles (before presenting a beat) and that the
    // sink withholds ready.
    uint32_t idle_pct, bp_pct;
    uint64_t seed, max_cycles;
    const uint32_t* src_words; uint64_t n_src_beats;   // beats × (words of every src port)
    uint32_t* snk_words; uint64_t snk_cap;             // beats × (words of every sink port)
    uint64_t expect_snk_beats;                          // stop when this many have arrived
    uint64_t* src_cycle; uint64_t* snk_cycle;           // optional: handshake cycle of each beat
    // Results.
    uint64_t n_snk_beats, cycles, protocol_errors, first_error_cycle, n_src_sent;
};

static uint64_t xorshift(uint64_t& s) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

// Runs the stream until every source beat was accepted and `expect_snk_beats` arrived (or the
// source is done and the sink saw nothing for 1000 cycles, or max_cycles). Checks the AXI rules
// on the sink side every cycle: valid held until ready, payload stable while stalled.
void ferroce_model_run_stream(FerroceModel* m, FerroceStream* s) {
    uint64_t rng = s->seed * 0x9E3779B97F4A7C15ull + 1;
    int src_w = 0, snk_w = 0;
    for (int i = 0; i < s->n_src; i++) src_w += words_of(m->ports[s->src_ports[i]].width);
    for (int i = 0; i < s->n_snk; i++) snk_w += words_of(m->ports[s->snk_ports[i]].width);
    std::vector<uint32_t> held(snk_w), cur(snk_w);
    bool stalled = false;
    uint64_t sent = 0, got = 0, quiet = 0, cyc = 0;
    bool presenting = false;
    s->protocol_errors = 0; s->first_error_cycle = 0;
    const FerrocePort& sv = m->ports[s->src_valid];
    const FerrocePort& sr = m->ports[s->src_ready];
    const FerrocePort& kv = m->ports[s->snk_valid];
    const FerrocePort& kr = m->ports[s->snk_ready];
    for (; cyc < s->max_cycles; cyc++) {
        if (sent >= s->n_src_beats && (s->expect_snk_beats ? got >= s->expect_snk_beats : quiet > 1000)) break;
        if (!presenting && sent < s->n_src_beats) {
            presenting = !(s->idle_pct && (xorshift(rng) % 100) < s->idle_pct);
        }
        set1(sv, presenting ? 1 : 0);
        if (presenting) {
            const uint32_t* w = s->src_words + sent * src_w;
            for (int i = 0; i < s->n_src; i++) {
                const FerrocePort& p = m->ports[s->src_ports[i]];
                port_set(p, w);
                w += words_of(p.width);
            }
        }
        bool ready = !(s->bp_pct && (xorshift(rng) % 100) < s->bp_pct);
        set1(kr, ready ? 1 : 0);
        m->eval();
        bool in_hs = presenting && bit0(sr);
        bool out_v = bit0(kv);
        if (out_v) {
            uint32_t* w = cur.data();
            for (int i = 0; i < s->n_snk; i++) {
                const FerrocePort& p = m->ports[s->snk_ports[i]];
                port_get(p, w);
                w += words_of(p.width);
            }
        }
        if (stalled && (!out_v || std::memcmp(held.data(), cur.data(), 4 * snk_w) != 0)) {
            if (!s->protocol_errors) s->first_error_cycle = cyc;
            s->protocol_errors++;
        }
        stalled = out_v && !ready;
        if (stalled) held = cur;
        if (out_v && ready) {
            if (got < s->snk_cap) {
                std::memcpy(s->snk_words + got * snk_w, cur.data(), 4 * snk_w);
                if (s->snk_cycle) s->snk_cycle[got] = cyc;
            }
            got++;
            quiet = 0;
        } else {
            quiet++;
        }
        if (in_hs) {
            if (s->src_cycle) s->src_cycle[sent] = cyc;
            sent++;
            presenting = false;
        }
        tick_settled(m);
    }
    set1(sv, 0);
    s->n_snk_beats = got;
    s->n_src_sent = sent;
    s->cycles = cyc;
}

}  // extern "C"
