//! An insert statement for the rows a first index writes by the hundred
//! thousand, binding its text and blobs without copying them.
//!
//! rusqlite binds every string and blob as `SQLITE_TRANSIENT`, so SQLite
//! copies each value into memory of its own before the row is built from
//! it (and frees it after): for the JDK's 328 K element rows of six texts
//! each, two million small allocations and copies on the single writer
//! thread, and the 213 K target names of the serial tail after them.
//! [`BulkInsert`] binds them `SQLITE_STATIC` instead: SQLite reads them in
//! place while the statement is stepped, which is safe because every
//! parameter is bound, the statement stepped and then reset within one
//! call that borrows the values.

use std::ffi::{CStr, c_char, c_int};
use std::ptr;

use rusqlite::{Connection, ffi};

/// One value of a row.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Value<'a> {
    Null,
    Int(i64),
    Text(&'a str),
    Blob(&'a [u8]),
}

impl From<i64> for Value<'_> {
    fn from(value: i64) -> Self {
        Value::Int(value)
    }
}

impl From<u32> for Value<'_> {
    fn from(value: u32) -> Self {
        Value::Int(i64::from(value))
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(value: &'a str) -> Self {
        Value::Text(value)
    }
}

impl<'a> From<&'a [u8]> for Value<'a> {
    fn from(value: &'a [u8]) -> Self {
        Value::Blob(value)
    }
}

impl<'a, T: Into<Value<'a>>> From<Option<T>> for Value<'a> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Value::Null, Into::into)
    }
}

/// A prepared insert, run once per row (or per batch of rows, for a
/// statement with several rows of parameters).
pub(crate) struct BulkInsert<'c> {
    db: *mut ffi::sqlite3,
    stmt: *mut ffi::sqlite3_stmt,
    /// How many parameters the statement has.
    params: usize,
    /// The connection outlives the statement.
    _connection: std::marker::PhantomData<&'c Connection>,
}

impl<'c> BulkInsert<'c> {
    /// Prepares `sql`, which must have exactly `params` parameters.
    pub(crate) fn new(
        connection: &'c Connection,
        sql: &str,
        params: usize,
    ) -> rusqlite::Result<Self> {
        // SAFETY: the handle stays valid while `connection` is borrowed,
        // which the statement's lifetime ensures; the statement is only
        // ever used from the thread holding that borrow (`BulkInsert` is
        // neither `Send` nor `Sync`, through its raw pointers).
        let db = unsafe { connection.handle() };
        let len = c_int::try_from(sql.len()).expect("statement shorter than 2 GiB");
        let mut stmt = ptr::null_mut();
        // SAFETY: `sql` is valid for `len` bytes; `stmt` receives the
        // statement, or null on error.
        let rc = unsafe {
            ffi::sqlite3_prepare_v3(
                db,
                sql.as_ptr().cast::<c_char>(),
                len,
                ffi::SQLITE_PREPARE_PERSISTENT,
                &mut stmt,
                ptr::null_mut(),
            )
        };
        let insert = Self {
            db,
            stmt,
            params,
            _connection: std::marker::PhantomData,
        };
        insert.check(rc)?;
        // SAFETY: `stmt` is a prepared statement.
        let has = unsafe { ffi::sqlite3_bind_parameter_count(stmt) };
        let has = usize::try_from(has).unwrap_or(0);
        if has != params {
            return Err(rusqlite::Error::InvalidParameterCount(has, params));
        }
        Ok(insert)
    }

    /// Runs the statement with `values`, one for each parameter in order.
    pub(crate) fn run(&mut self, values: &[Value<'_>]) -> rusqlite::Result<()> {
        if values.len() != self.params {
            return Err(rusqlite::Error::InvalidParameterCount(
                values.len(),
                self.params,
            ));
        }
        // Every length fits SQLite's `int` before anything is bound, so
        // nothing is left bound when a value is refused.
        for value in values {
            match value {
                Value::Text(text) => length(text.len())?,
                Value::Blob(blob) => length(blob.len())?,
                Value::Null | Value::Int(_) => 0,
            };
        }
        let mut result = Ok(());
        for (at, value) in values.iter().enumerate() {
            let index = at as c_int + 1;
            // SAFETY: `stmt` is a prepared statement of `values.len()`
            // parameters; lengths were checked to fit above. A text or
            // blob is bound `SQLITE_STATIC`: SQLite reads it in place until
            // the statement is reset or the parameter bound again, and this
            // call resets the statement below while `values` still borrows
            // every value.
            let rc = unsafe {
                match *value {
                    Value::Null => ffi::sqlite3_bind_null(self.stmt, index),
                    Value::Int(v) => ffi::sqlite3_bind_int64(self.stmt, index, v),
                    Value::Text(text) => ffi::sqlite3_bind_text(
                        self.stmt,
                        index,
                        text.as_ptr().cast::<c_char>(),
                        text.len() as c_int,
                        ffi::SQLITE_STATIC(),
                    ),
                    Value::Blob(blob) => ffi::sqlite3_bind_blob(
                        self.stmt,
                        index,
                        blob.as_ptr().cast(),
                        blob.len() as c_int,
                        ffi::SQLITE_STATIC(),
                    ),
                }
            };
            result = self.check(rc);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            // SAFETY: every parameter is bound to a live value.
            let rc = unsafe { ffi::sqlite3_step(self.stmt) };
            if rc != ffi::SQLITE_DONE {
                result = self.check(if rc == ffi::SQLITE_ROW {
                    ffi::SQLITE_MISUSE
                } else {
                    rc
                });
            }
        }
        // SAFETY: resetting and unbinding a prepared statement; after this
        // SQLite holds no pointer into `values`. The step's error, if any, is
        // reported above (reset repeats it).
        unsafe {
            ffi::sqlite3_reset(self.stmt);
            ffi::sqlite3_clear_bindings(self.stmt);
        }
        result
    }

    fn check(&self, rc: c_int) -> rusqlite::Result<()> {
        if rc == ffi::SQLITE_OK {
            return Ok(());
        }
        // SAFETY: `db` is the live connection's handle; the message is a
        // NUL-terminated string SQLite owns, copied at once.
        let message = unsafe {
            let text = ffi::sqlite3_errmsg(self.db);
            (!text.is_null()).then(|| CStr::from_ptr(text).to_string_lossy().into_owned())
        };
        Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), message))
    }
}

impl Drop for BulkInsert<'_> {
    fn drop(&mut self) {
        // SAFETY: finalizing the statement this value prepared (null is a
        // no-op); nothing uses it afterwards.
        unsafe {
            ffi::sqlite3_finalize(self.stmt);
        }
    }
}

/// A value's length as SQLite takes it.
fn length(len: usize) -> rusqlite::Result<c_int> {
    c_int::try_from(len)
        .map_err(|_| rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_TOOBIG), None))
}

/// Rows inserted by one run of a multi-row `INSERT`.
const ROWS_PER_INSERT: usize = 64;

/// Inserts `rows` with `head` (`INSERT ... VALUES `), up to
/// [`ROWS_PER_INSERT`] rows per statement run: SQLite's fixed cost of
/// running a statement is paid once per batch instead of once per row, and
/// texts are read in place ([`BulkInsert`]). `columns` gives a row's
/// values, in the statement's order.
pub(crate) fn insert_rows<'r, R, const N: usize>(
    tx: &rusqlite::Transaction,
    head: &str,
    rows: &'r [R],
    columns: impl Fn(&'r R) -> [Value<'r>; N],
) -> rusqlite::Result<()> {
    let sql = |n_rows: usize| {
        let row = format!("({})", vec!["?"; N].join(", "));
        format!("{head}{}", vec![row; n_rows].join(", "))
    };
    let mut full: Option<BulkInsert> = None;
    let mut values: Vec<Value<'r>> = Vec::with_capacity(ROWS_PER_INSERT * N);
    for batch in rows.chunks(ROWS_PER_INSERT) {
        values.clear();
        values.extend(batch.iter().flat_map(&columns));
        if batch.len() == ROWS_PER_INSERT {
            let insert = match &mut full {
                Some(insert) => insert,
                None => full.insert(BulkInsert::new(tx, &sql(ROWS_PER_INSERT), values.len())?),
            };
            insert.run(&values)?;
        } else {
            BulkInsert::new(tx, &sql(batch.len()), values.len())?.run(&values)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Connection {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch("CREATE TABLE t (a INTEGER NOT NULL, b TEXT, c BLOB, d TEXT NOT NULL)")
            .unwrap();
        db
    }

    #[test]
    fn rows_keep_their_values_after_the_borrowed_ones_are_gone() {
        let db = table();
        {
            let mut insert =
                BulkInsert::new(&db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4)", 4).unwrap();
            for i in 0..100_u32 {
                // Fresh buffers each row, dropped right after it.
                let text = format!("text {i} é");
                let blob = vec![i as u8; i as usize];
                let name: Option<&str> = (i % 3 != 0).then_some(text.as_str());
                insert
                    .run(&[
                        Value::from(i),
                        Value::from(name),
                        Value::from(blob.as_slice()),
                        Value::from(""),
                    ])
                    .unwrap();
            }
        }
        type Row = (i64, Option<String>, Option<Vec<u8>>, String);
        let rows: Vec<Row> = db
            .prepare("SELECT a, b, c, d FROM t ORDER BY a")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(rows.len(), 100);
        for (i, (a, b, c, d)) in rows.into_iter().enumerate() {
            assert_eq!(a, i as i64);
            let expected = (i % 3 != 0).then(|| format!("text {i} é"));
            assert_eq!(b, expected);
            assert_eq!(c.unwrap_or_default(), vec![i as u8; i]);
            assert_eq!(d, "");
        }
    }

    #[test]
    fn a_failing_row_is_an_error_and_the_next_one_still_goes_in() {
        let db = table();
        let mut insert = BulkInsert::new(&db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4)", 4).unwrap();
        let error = insert
            .run(&[Value::Null, Value::Null, Value::Null, Value::from("x")])
            .unwrap_err();
        assert!(
            error.to_string().contains("NOT NULL"),
            "unexpected error: {error}"
        );
        insert
            .run(&[
                Value::from(1_u32),
                Value::Null,
                Value::Null,
                Value::from("y"),
            ])
            .unwrap();
        assert!(matches!(
            insert.run(&[Value::from(2_u32)]),
            Err(rusqlite::Error::InvalidParameterCount(1, 4))
        ));
        drop(insert);
        let n: i64 = db
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn the_parameter_count_is_checked() {
        let db = table();
        let error = BulkInsert::new(&db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4)", 3)
            .err()
            .expect("4 parameters are not 3");
        assert!(matches!(
            error,
            rusqlite::Error::InvalidParameterCount(4, 3)
        ));
        assert!(BulkInsert::new(&db, "INSERT INTO nowhere VALUES (?1)", 1).is_err());
    }
}
