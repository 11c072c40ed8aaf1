// gbdt::ShardLink over libpq: one session per shard server, every request
// sent to all shards before any reply is awaited, so the shards work in
// parallel; the coordinator waits on all their sockets and its own latch
// at once.  call_all runs inside engine code: it never ereports, longjmps
// or processes interrupts (it polls interrupt_pending and throws).
#include "distributed/shard_link.h"

#include <algorithm>
#include <chrono>
#include <new>

#include "distributed/shard_connect.h"
#include "distributed/shard_sessions.h"
#include "distributed/shard_wait.h"
#include "guard.h"
#include "settings.h"

namespace gbdt_pg {

namespace {

using ResultPtr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// Largest request payload: a bytea parameter (1 GB less its header).
constexpr size_t kMaxPayload = 0x3FFFFFFF - 4;
// The longest sleep between two looks at the coordinator's interrupts.
constexpr long kPollMs = 100;

std::string chomp(const char* s) {
  std::string r = s != nullptr ? s : "";
  while (!r.empty() && (r.back() == '\n' || r.back() == '\r')) r.pop_back();
  return r;
}

std::string first_line(const char* s) {
  std::string r = chomp(s);
  return r.substr(0, r.find('\n'));
}

class PgShardLink final : public gbdt::ShardLink {
 public:
  PgShardLink(int id, std::vector<std::string> labels) : id_(id), labels_(std::move(labels)) {}
  ~PgShardLink() override { shard_sessions_close(id_); }
  size_t shard_count() const override { return labels_.size(); }
  std::string shard_name(size_t i) const override { return labels_.at(i); }
  std::vector<std::string> call_all(const std::string& name,
                                    const std::vector<std::string>& payloads) override;
  // Reply bytes received over the link's life.
  uint64_t bytes_received() const { return bytes_received_; }

 private:
  ShardSessions* group() const;
  [[noreturn]] void fail(const std::string& message);
  [[noreturn]] void cancelled();
  void send_all(ShardSessions* g, const std::string& name,
                const std::vector<std::string>& payloads);
  bool read_replies(ShardSessions* g, size_t i, std::string* reply, bool* got);
  void take_result(ShardSessions* g, size_t i, const PGresult* r, std::string* reply, bool* got);
  void wait_all(ShardSessions* g, std::vector<std::string>* replies);

  int id_;
  std::vector<std::string> labels_;
  uint64_t bytes_received_ = 0;
};

ShardSessions* PgShardLink::group() const {
  ShardSessions* g = shard_sessions_find(id_);
  if (g == nullptr)
    throw gbdt::ShardError("the shard sessions were closed after an earlier failure");
  return g;
}

// Cancels every other busy shard, closes every session, throws.
void PgShardLink::fail(const std::string& message) {
  shard_sessions_close(id_);
  throw gbdt::ShardError(message);
}

void PgShardLink::cancelled() {
  shard_sessions_close(id_);
  throw gbdt::Cancelled();
}

void PgShardLink::send_all(ShardSessions* g, const std::string& name,
                           const std::vector<std::string>& payloads) {
  static const Oid types[3] = {TEXTOID, TEXTOID, BYTEAOID};
  static const int formats[3] = {0, 0, 1};
  for (size_t i = 0; i < payloads.size(); i++)
    if (payloads[i].size() > kMaxPayload)
      fail(labels_[i] + ": request \"" + name + "\" is larger than a bytea can be");
  for (size_t i = 0; i < payloads.size(); i++) {
    ShardSession& s = g->s[i];
    const char* values[3] = {g->token, name.c_str(), payloads[i].data()};
    const int lengths[3] = {0, 0, (int)payloads[i].size()};
    if (s.conn == nullptr || s.busy ||
        !PQsendQueryParams(s.conn, s.call_sql, 3, types, values, lengths, formats, 1))
      fail(labels_[i] + ": could not send request \"" + name +
           "\": " + chomp(s.conn != nullptr ? PQerrorMessage(s.conn) : "session closed"));
    s.busy = true;
  }
}

// One result of shard i: the reply (one bytea in binary format) or the
// shard's error, which fails the call.
void PgShardLink::take_result(ShardSessions* g, size_t i, const PGresult* r, std::string* reply,
                              bool* got) {
  const ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_TUPLES_OK) {
    if (*got || PQntuples(r) != 1 || PQnfields(r) != 1 || PQfformat(r, 0) != 1 ||
        PQgetisnull(r, 0, 0))
      fail(labels_[i] + ": the shard function's reply is not one bytea value");
    const int len = PQgetlength(r, 0, 0);
    reply->assign(PQgetvalue(r, 0, 0), (size_t)len);
    bytes_received_ += (uint64_t)len;
    *got = true;
    return;
  }
  std::string msg = labels_[i] + ": ";
  if (PQstatus(g->s[i].conn) == CONNECTION_BAD) msg += "connection lost: ";
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  // libpq's own errors (a lost connection) carry no fields: their first
  // line says what happened, later ones what libpq tried after it.
  std::string own = chomp(PQresultErrorMessage(r));
  msg += primary != nullptr ? std::string(primary) : own.substr(0, own.find('\n'));
  const char* detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL);
  if (detail != nullptr) msg += std::string(": ") + detail;
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (state != nullptr) msg += std::string(" (SQLSTATE ") + state + ")";
  if (st != PGRES_FATAL_ERROR && st != PGRES_NONFATAL_ERROR)
    msg += std::string(" (unexpected result ") + PQresStatus(st) + ")";
  fail(msg);
}

// Reads what shard i sent; true once its last result has arrived.
bool PgShardLink::read_replies(ShardSessions* g, size_t i, std::string* reply, bool* got) {
  ShardSession& s = g->s[i];
  // A failed read marks the connection bad; the results libpq still holds
  // (the shard's FATAL message, then its own "connection lost") follow.
  (void)PQconsumeInput(s.conn);
  while (!PQisBusy(s.conn)) {
    ResultPtr r(PQgetResult(s.conn), PQclear);
    if (r == nullptr) {
      s.busy = false;
      if (!*got)
        fail(labels_[i] + ": " +
             (PQstatus(s.conn) == CONNECTION_BAD ? "connection lost: " + first_line(PQerrorMessage(s.conn))
                                                  : std::string("no reply from the shard function")));
      return true;
    }
    take_result(g, i, r.get(), reply, got);
  }
  if (PQstatus(s.conn) == CONNECTION_BAD)
    fail(labels_[i] + ": connection lost: " + first_line(PQerrorMessage(s.conn)));
  return false;
}

// Flushes every request and reads every reply, all shards at once, waking
// at least every kPollMs for the coordinator's interrupts and the timeout.
void PgShardLink::wait_all(ShardSessions* g, std::vector<std::string>* replies) {
  const size_t n = labels_.size();
  const int timeout_ms = guc_shard_timeout;
  const auto start = std::chrono::steady_clock::now();
  std::vector<char> flushing(n, 1), done(n, 0), got(n, 0);
  std::vector<pgsocket> socks(n);
  std::vector<int> events(n), ready(n), who(n);
  std::vector<WaitEvent> occurred(n + 2);
  size_t left = n;
  char err[512];
  while (left > 0) {
    int k = 0;
    for (size_t i = 0; i < n; i++) {
      if (done[i]) continue;
      if (flushing[i]) {
        const int f = PQflush(g->s[i].conn);
        if (f < 0) fail(labels_[i] + ": connection lost: " + first_line(PQerrorMessage(g->s[i].conn)));
        flushing[i] = f == 1;
      }
      // libpq reads input while it flushes, so a whole reply may already
      // be buffered with nothing left on the socket to wake the wait.
      if (!flushing[i] && !PQisBusy(g->s[i].conn)) {
        bool has = got[i] != 0;
        const bool finished = read_replies(g, i, &(*replies)[i], &has);
        got[i] = has;
        if (finished) {
          done[i] = 1;
          left--;
          continue;
        }
      }
      socks[k] = PQsocket(g->s[i].conn);
      events[k] = WL_SOCKET_READABLE | (flushing[i] ? WL_SOCKET_WRITEABLE : 0);
      who[k++] = (int)i;
    }
    if (left == 0) break;
    if (interrupt_pending()) cancelled();
    const long waited = (long)std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
    if (timeout_ms > 0 && waited >= timeout_ms)
      fail(labels_[who[0]] + " did not answer within gbdt.shard_timeout (" +
           std::to_string(timeout_ms) + " ms)");
    const long wait_ms = timeout_ms > 0 ? std::min(kPollMs, timeout_ms - waited) : kPollMs;
    bool pm_death = false;
    if (!shard_wait_sockets(socks.data(), events.data(), k, wait_ms, occurred.data(), ready.data(),
                            &pm_death, err, sizeof err))
      fail(std::string("waiting for the shards failed: ") + err);
    if (pm_death) fail("the coordinator's postmaster died while waiting for the shards");
    for (int j = 0; j < k; j++) {
      const size_t i = (size_t)who[j];
      if (!(ready[j] & WL_SOCKET_READABLE)) continue;
      bool has = got[i] != 0;
      if (read_replies(g, i, &(*replies)[i], &has)) {
        done[i] = 1;
        left--;
      }
      got[i] = has;
    }
  }
}

std::vector<std::string> PgShardLink::call_all(const std::string& name,
                                               const std::vector<std::string>& payloads) {
  ShardSessions* g = group();
  if (payloads.size() != labels_.size())
    throw gbdt::ShardError("request \"" + name + "\" has " + std::to_string(payloads.size()) +
                           " payloads for " + std::to_string(labels_.size()) + " shards");
  if (interrupt_pending()) cancelled();
  std::vector<std::string> replies(labels_.size());
  send_all(g, name, payloads);
  wait_all(g, &replies);
  return replies;
}

// The C++ link over group id, or nullptr when memory ran out (never throws).
gbdt::ShardLink* new_link(int id, const std::vector<ShardTarget>& targets) noexcept {
  try {
    std::vector<std::string> labels;
    for (const ShardTarget& t : targets) labels.push_back(t.label);
    return new PgShardLink(id, std::move(labels));
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

// Owns no C++ object while it may ereport: an ERROR leaves the sessions in
// their registered group, closed by the (sub)transaction's abort.
std::unique_ptr<gbdt::ShardLink> open_shard_link(const std::vector<ShardTarget>& targets) {
  if (targets.empty() || targets.size() > 65535)
    ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                    errmsg("a distributed training needs 1 to 65535 shard servers, not %zu",
                           targets.size())));
  const int n = (int)targets.size();
  const char** labels = (const char**)palloc(sizeof(char*) * (size_t)n);
  for (int i = 0; i < n; i++) labels[i] = targets[(size_t)i].label.c_str();
  ShardSessions* g = shard_sessions_create(n, labels);
  pfree(labels);
  const int id = g->id;
  for (int i = 0; i < n; i++)
    shard_connect(&g->s[i], targets[(size_t)i].server, guc_shard_timeout, g->cxt);
  gbdt::ShardLink* link = new_link(id, targets);
  if (link == nullptr) {
    shard_sessions_close(id);
    ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
  }
  return std::unique_ptr<gbdt::ShardLink>(link);
}

}  // namespace gbdt_pg
