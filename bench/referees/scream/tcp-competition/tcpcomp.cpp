// fairway's driver (none of Ericsson's code is in this file): Ericsson's SCReAM v1 (ScreamTx,
// ScreamRx, RtpQueue, VideoEnc at 972a83f, compiled unchanged next to this file) against one
// bulk Reno-like TCP flow through one tail-drop FIFO, as RFC 8867 §5.6: 2 Mb/s, a 75000-byte
// buffer (300 ms), 50 ms one-way propagation each way, TCP from 0 s, the video from 5 s to 119 s
// beside a 20 kb/s audio flow (50-byte payloads every 20 ms). The feedback takes the 50 ms back
// with no queue. See README.md.
//
// usage: tcpcomp SBD LIMIT_BYTES JITTER_MS CWND_MIN_LOW RFC_FB
//   SBD            1: ScreamTx's competing-flows compensation (enableSbd) on; 0: off (its default)
//   LIMIT_BYTES    the bottleneck's buffer
//   JITTER_MS      each packet's extra forward delay, uniform in [0, JITTER_MS], no reordering
//   CWND_MIN_LOW   >0: setCwndMinLow(it) (a floor under ScreamTx's 2-MSS minimum window)
//   RFC_FB         1: the receiver's feedback interval by RFC 8298 §4.2.2's rule in place of
//                  ScreamRx's own (at least 10 a second)
// stdout: a line of ScreamTx's state every 50 ms; stderr: ScreamTx's own messages (its RTP queue
// discards) and the RESULT line.
// `#define private public` only lets the log line read ScreamTx's state; nothing is written.
#define private public
#include "stdafx.h"
#include "VideoEnc.h"
#include "RtpQueue.h"
#include "ScreamTx.h"
#include "ScreamRx.h"
#undef private
#include <deque>
#include <vector>
#include <cmath>
#include <cstdio>
#include <cstdlib>
using namespace std;

struct Pkt { int flow; int size; uint32_t seq; double tArr0; double tArr; };  // flow 0 scream, 1 tcp, 2 audio
struct Fb { double t; vector<unsigned char> buf; };

int main(int argc, char **argv) {
    bool sbd = argc > 1 && atoi(argv[1]);
    int limit = argc > 2 ? atoi(argv[2]) : 75000;
    double jit = argc > 3 ? atof(argv[3]) * 1e-3 : 0.0;
    int cwndMinLow = argc > 4 ? atoi(argv[4]) : 0;
    bool rfcFb = argc > 5 && atoi(argv[5]);
    const double rate = 2e6, owd = 0.05, Tmax = 120.0, timeBase = 10000.0, FR = 25.0;
    ScreamTx *tx = new ScreamTx(0.8f, 0.9f, 0.1f, sbd);
    if (cwndMinLow > 0) tx->setCwndMinLow(cwndMinLow);
    ScreamRx *rx = new ScreamRx(0);
    RtpQueue *q = new RtpQueue();
    VideoEnc *enc = new VideoEnc(q, FR, (char *)"../traces/trace_no_key_smooth.txt");
    tx->registerNewStream(q, 10, 1.0f, 150e3f, 150e3f, 1500e3f);
    // bottleneck
    deque<Pkt> bq; int bqBytes = 0; double busyUntil = 0; bool busy = false; Pkt inTx{};
    deque<Pkt> fwd;  // propagation after the bottleneck: (deliver time in tArr)
    deque<Fb> fbLine;
    // TCP: an idealised SACK-like Reno window: each delivered segment is acknowledged (after
    // the 50 ms return path); a dropped segment is detected at the first acknowledgement of a
    // segment sent after it; a loss halves cwnd at most once per smoothed RTT; lost segments are
    // sent again as new ones (goodput counts delivered segments).
    const int MSS = 1460, TSZ = 1500;
    double cwnd = 2, ssthresh = 1e9, lastCut = -1, srtt = 0.1; long inflight = 0; uint32_t nextSeq = 0;
    deque<pair<double, double>> acks;  // (arrival at sender, send time)
    deque<double> dropped;             // send times of dropped segments
    long tcpBytes = 0, vidBytes = 0, audBytes = 0, vidDrops = 0, tcpDrops = 0;
    int tick = (int)(timeBase / FR); long n = 0; long nextCallN = -1; uint32_t ssrc = 0; double nextAudio = 5.0;
    double lastLog = -1;
    auto enqueue = [&](Pkt p) {
        if (bqBytes + p.size > limit) { if (p.flow == 0) vidDrops++; if (p.flow == 1) { tcpDrops++; dropped.push_back(p.tArr0); } return; }
        bq.push_back(p); bqBytes += p.size;
    };
    while (true) {
        uint32_t time_ntp = (uint32_t)(n * (65536 / timeBase));
        double t = time_ntp / 65536.0;
        if (t > Tmax) break;
        float retVal = -1;
        // bottleneck service
        if (busy && t >= busyUntil) {
            busy = false; Pkt p = inTx;
            double j = jit > 0 ? jit * (rand() / (double)RAND_MAX) : 0;
            p.tArr = busyUntil + owd + j;
            if (!fwd.empty() && p.tArr < fwd.back().tArr) p.tArr = fwd.back().tArr;  // no reordering
            fwd.push_back(p);
        }
        if (!busy && !bq.empty()) {
            inTx = bq.front(); bq.pop_front(); bqBytes -= inTx.size; busy = true;
            busyUntil = t + inTx.size * 8.0 / rate;
        }
        // deliveries
        while (!fwd.empty() && fwd.front().tArr <= t) {
            Pkt p = fwd.front(); fwd.pop_front();
            if (p.flow == 0) { rx->receive(time_ntp, 0, 10, p.size, (uint16_t)p.seq, 0); if (t >= 5 && t < 119) vidBytes += p.size; }
            else if (p.flow == 2) { if (t >= 5 && t < 119) audBytes += p.size; }
            else {
                if (t >= 5 && t < 119) tcpBytes += MSS;
                acks.push_back({t + owd, p.tArr0});
            }
        }
        // TCP acks
        while (!acks.empty() && acks.front().first <= t) {
            double st = acks.front().second; acks.pop_front(); inflight--;
            srtt = 0.875 * srtt + 0.125 * (t - st);
            while (!dropped.empty() && dropped.front() < st) {
                dropped.pop_front(); inflight--;
                if (t - lastCut > srtt) { ssthresh = max(cwnd / 2, 2.0); cwnd = ssthresh; lastCut = t; }
            }
            if (cwnd < ssthresh) cwnd += 1; else cwnd += 1 / cwnd;
        }
        while (inflight < (long)cwnd && t < 119) { inflight++; enqueue({1, TSZ, nextSeq++, t, 0}); }
        // audio
        if (t >= nextAudio && t < 119) { enqueue({2, 50 + 28, 0, t, 0}); nextAudio += 0.02; }
        // video
        if (t >= 5 && t < 119) {
            if (n % tick == 0) {
                enc->setTargetBitrate(tx->getTargetBitrate(10));
                int bytes = enc->encode(t);
                tx->newMediaFrame(time_ntp, 10, bytes);
                retVal = tx->isOkToTransmit(time_ntp, ssrc);
            }
            if (rfcFb) rx->rtcpFbInterval_ntp = (uint32_t)(65536.0 / min(50.0, max(2.5, rx->averageReceivedRate / 10000.0)));
            bool isFb = rx->isFeedback(time_ntp) && (time_ntp - rx->getLastFeedbackT() > rx->getRtcpFbInterval() || rx->checkIfFlushAck());
            unsigned char buf[2000]; int fbSize = -1;
            if (isFb && rx->createStandardizedFeedback(time_ntp, buf, fbSize)) fbLine.push_back({t + owd, vector<unsigned char>(buf, buf + fbSize)});
            while (!fbLine.empty() && fbLine.front().t <= t) {
                tx->incomingStandardizedFeedback(time_ntp, fbLine.front().buf.data(), (int)fbLine.front().buf.size());
                fbLine.pop_front();
                retVal = tx->isOkToTransmit(time_ntp, ssrc);
            }
            if (n == nextCallN && retVal != 0.0f) {
                retVal = tx->isOkToTransmit(time_ntp, ssrc);
                if (retVal > 0) nextCallN = n + max(1L, (long)(timeBase * retVal));
            }
            if (retVal == 0) {
                void *pk = nullptr; int size = 0; uint16_t sn = 0;
                q->sendPacket(pk, size, sn);
                enqueue({0, size + 28, sn, t, 0});  // + IP/UDP
                retVal = tx->addTransmitted(time_ntp, 10, size, sn);
                nextCallN = n + max(1L, (long)(timeBase * retVal));
            }
            if (t - lastLog > 0.05) {
                lastLog = t;
                ScreamTx::Stream *s = tx->streams[0];
                printf("%.2f base %.4f minavg %.3f qd %.3f tgt %.3f cwnd %d bif %d tb %.0f rtpq %.3f ler %.4f var %.3f mSh %.3f trend %.2f fs %d tcpcwnd %.1f bq %d sbdskew %.3g\n", t, (tx->getBaseOwd() == UINT32_MAX ? -1.0 : tx->getBaseOwd() / 65536.0), tx->queueDelayMinAvg, tx->queueDelay, tx->queueDelayTarget, tx->cwnd, tx->bytesInFlight, s->targetBitrate / 1e3, q->getDelay(t), tx->lossEventRate, tx->queueDelaySbdVar, tx->queueDelaySbdMeanSh, tx->queueDelayTrend, (int)tx->inFastStart, cwnd, bqBytes, tx->queueDelaySbdSkew);
            }
        }
        n++;
    }
    fprintf(stderr, "RESULT sbd=%d limit=%d jitter=%.0fms cwndMinLow=%d rfcFb=%d: video %.1f kb/s, tcp %.1f kb/s, audio %.1f kb/s (5-119 s, at the receiver), video net drops %ld, tcp drops %ld\n",
            (int)sbd, limit, jit * 1e3, cwndMinLow, (int)rfcFb, vidBytes * 8 / 114.0 / 1e3, tcpBytes * 8 / 114.0 / 1e3, audBytes * 8 / 114.0 / 1e3, vidDrops, tcpDrops);
}
