-- test/load/scripts/spmv.sql -- pgbench script of the gpuscan load test:
-- y = A x for a random stored CSR matrix and vector: gpu_csr_spmv and the
-- set-returning gpu_csr_spmv_rows, over double precision and real, against
-- load_spmv_expected (small integers: exact).
\set mid random(1, 6)
\set xid random(1, 3)
SELECT load_check('gpu_csr_spmv(double precision), matrix ' || :mid || ', x ' || :xid,
  (SELECT gpu_csr_spmv(m.rp, m.ci, m.v, v.x) = e.y
   FROM load_matrices m JOIN load_vectors v USING (mid) JOIN load_spmv_expected e USING (mid, xid)
   WHERE mid = :mid AND xid = :xid));
SELECT load_check('gpu_csr_spmv(real), matrix ' || :mid || ', x ' || :xid,
  (SELECT gpu_csr_spmv(m.rp, m.ci, m.v::real[], v.x::real[]) = e.y::real[]
   FROM load_matrices m JOIN load_vectors v USING (mid) JOIN load_spmv_expected e USING (mid, xid)
   WHERE mid = :mid AND xid = :xid));
SELECT load_check('gpu_csr_spmv_rows(double precision), matrix ' || :mid || ', x ' || :xid,
  (SELECT (SELECT count(*) = m.nrows AND coalesce(bool_and(r.row_index = o - 1 AND r.value = e.y[o]), true)
           FROM gpu_csr_spmv_rows(m.rp, m.ci, m.v, v.x) WITH ORDINALITY r(row_index, value, o))
   FROM load_matrices m JOIN load_vectors v USING (mid) JOIN load_spmv_expected e USING (mid, xid)
   WHERE mid = :mid AND xid = :xid));
SELECT load_check('gpu_csr_spmv_rows(real), matrix ' || :mid || ', x ' || :xid,
  (SELECT (SELECT count(*) = m.nrows AND coalesce(bool_and(r.row_index = o - 1 AND r.value = e.y[o]::real), true)
           FROM gpu_csr_spmv_rows(m.rp, m.ci, m.v::real[], v.x::real[]) WITH ORDINALITY r(row_index, value, o))
   FROM load_matrices m JOIN load_vectors v USING (mid) JOIN load_spmv_expected e USING (mid, xid)
   WHERE mid = :mid AND xid = :xid));
SELECT load_check_paths();
