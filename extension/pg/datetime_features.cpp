// Dates and times as numeric features: days since 1970-01-01 with a
// fraction for the time of day (timestamps), so the unit is the same for
// date and timestamp columns and splits read as days.  In float4 (the
// engine's feature type) days near the present (2^14 to 2^15 days, 2014 to
// 2059) have a resolution of 2^-9 day, about 2.8 minutes; seconds since the
// epoch would be no finer (2^7 = 128 s) and harder to read.  timestamptz is
// UTC.  An interval is days too: months count 30 days (PostgreSQL's own
// interval comparison rule), plus days, plus the time part as a fraction.
#include "convert.h"

extern "C" {
#include "datatype/timestamp.h"
#include "utils/date.h"
#include "utils/timestamp.h"
}

namespace gbdt_pg {

namespace {
// 2000-01-01 (PostgreSQL's epoch for dates and timestamps) in days since 1970-01-01.
constexpr double kPgEpochDays = (double)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE);
constexpr double kUsecPerDay = (double)USECS_PER_DAY;
}  // namespace

double datetime_to_days(Datum d, ValKind k) {
  switch (k) {
    case ValKind::kDate: {
      DateADT v = DatumGetDateADT(d);
      if (DATE_IS_NOBEGIN(v)) return -HUGE_VAL;
      if (DATE_IS_NOEND(v)) return HUGE_VAL;
      return (double)v + kPgEpochDays;
    }
    case ValKind::kTimestamp: {
      Timestamp v = DatumGetTimestamp(d);
      if (TIMESTAMP_IS_NOBEGIN(v)) return -HUGE_VAL;
      if (TIMESTAMP_IS_NOEND(v)) return HUGE_VAL;
      // Whole days and the remainder apart, so no precision is lost in the
      // double before the float4 rounding.
      int64 days = v / USECS_PER_DAY, rem = v % USECS_PER_DAY;
      return (double)days + kPgEpochDays + (double)rem / kUsecPerDay;
    }
    case ValKind::kInterval: {
      const Interval* v = DatumGetIntervalP(d);
      return (double)v->month * DAYS_PER_MONTH + (double)v->day + (double)v->time / kUsecPerDay;
    }
    default: break;
  }
  return NAN;
}

}  // namespace gbdt_pg
