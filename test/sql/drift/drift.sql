-- gbdt_drift: the training distribution a trained model stores (model
-- format version 4) against the rows of a relation, on the model's bins.
-- On the training rows every PSI is ~0; a shifted feature comes first; the
-- missing and unseen-category rates count what they say; a relation lacking
-- features is an error naming them all; a model stored before the
-- distribution existed still loads and scores identically, and gbdt_drift
-- says what it lacks; a tampered distribution section is refused.
BEGIN;
SELECT plan(17);

CREATE TEMP TABLE dt AS
SELECT i AS id, ((i * 7919) % 1000) / 1000.0 AS a, ((i * 104729) % 997) / 997.0 AS b,
       CASE WHEN i % 10 = 0 THEN NULL ELSE ((i * 65537) % 983) / 983.0 END AS c,
       (ARRAY['red','green','blue'])[1 + i % 3] AS col,
       CASE WHEN ((i * 7919) % 1000) / 1000.0 + ((i * 65537) % 983) / 983.0 > 1 THEN 1 ELSE 0 END AS y,
       ((i * 7919) % 1000) / 1000.0 * 2 + ((i * 65537) % 983) / 983.0 AS yr
FROM generate_series(1, 3000) i;

CREATE TEMP TABLE dm AS
SELECT gbdt_train('dt', 'y', ARRAY['a', 'b', 'c', 'col'], 'binary:logistic',
                  '{"num_round": 10, "max_depth": 3}') AS bin,
       gbdt_train('dt', 'yr', ARRAY['a', 'b', 'c'], 'reg:squarederror',
                  '{"num_round": 10, "max_depth": 3}') AS reg,
       gbdt_train('dt', 'y', ARRAY['a', 'b', 'c'], 'binary:logistic',
                  '{"num_round": 3, "max_depth": 2}') AS small;

-- Training rows: nothing drifted.
SELECT is((SELECT count(*) FROM gbdt_drift((SELECT bin FROM dm), 'dt')), 5::bigint,
          'one row per feature and one prediction row');
SELECT is((SELECT max(psi) < 0.01 AND max(ks) < 0.01 FROM gbdt_drift((SELECT bin FROM dm), 'dt')), true,
          'on the training rows every PSI and KS is below 0.01');
SELECT is((SELECT max(psi) < 0.01 FROM gbdt_drift((SELECT reg FROM dm), 'dt')), true,
          'regression model: every PSI below 0.01 on its training rows');
SELECT is((SELECT array_agg(feature ORDER BY feature) FROM gbdt_drift((SELECT bin FROM dm), 'dt')),
          ARRAY['a', 'b', 'c', 'col', 'prediction'], 'the rows name the features and the prediction');
SELECT is((SELECT (missing_rate_train, missing_rate_now)::text FROM gbdt_drift((SELECT bin FROM dm), 'dt')
           WHERE feature = 'c'), '(0.1,0.1)', 'missing rates of c: 10% in training and now');

-- Rows held out for validation (validation_fraction) are part of the
-- training relation's distribution too: its rows have no drift at all.
SELECT is((SELECT max(psi) < 1e-12 AND max(ks) < 1e-12
           FROM gbdt_drift(gbdt_train('dt', 'y', ARRAY['a', 'b', 'c', 'col'], 'binary:logistic',
                                      '{"num_round": 20, "max_depth": 3, "validation_fraction": 0.3,
                                        "early_stopping_rounds": 2}'), 'dt')),
          true, 'with validation_fraction and early stopping: PSI and KS 0 on the training relation');

-- One feature shifted: it comes first.
CREATE TEMP TABLE dshift AS SELECT id, a, b + 0.5 AS b, c, col FROM dt;
SELECT is((SELECT feature FROM gbdt_drift((SELECT bin FROM dm), 'dshift') LIMIT 1), 'b',
          'the shifted feature b comes first');
SELECT is((SELECT psi > 0.25 AND ks > 0.4 FROM gbdt_drift((SELECT bin FROM dm), 'dshift') WHERE feature = 'b'),
          true, 'its PSI and KS are large');
CREATE TEMP TABLE dshift2 AS SELECT id, a * 0.3 AS a, b, c, col FROM dt;
SELECT is((SELECT array_agg(feature) FROM (SELECT feature FROM gbdt_drift((SELECT bin FROM dm), 'dshift2') LIMIT 2) s),
          ARRAY['a', 'prediction'], 'a shifted feature the model splits on comes first, the prediction it moves next');

-- Missing values and unseen categories now.
CREATE TEMP TABLE dnew AS
SELECT id, a, b, CASE WHEN id % 2 = 0 THEN NULL ELSE c END AS c,
       CASE WHEN id % 5 = 0 THEN 'purple' ELSE col END AS col FROM dt;
SELECT is((SELECT missing_rate_now FROM gbdt_drift((SELECT bin FROM dm), 'dnew') WHERE feature = 'c'),
          0.5::float8, 'missing rate of c now: 50%');
SELECT is((SELECT (unseen_category_rate, psi > 0.1)::text FROM gbdt_drift((SELECT bin FROM dm), 'dnew')
           WHERE feature = 'col'), '(0.2,t)', 'col: 20% unseen categories, counted as drift');
SELECT is((SELECT count(*) FROM gbdt_drift((SELECT bin FROM dm), 'dnew')
           WHERE unseen_category_rate IS NULL), 4::bigint,
          'unseen_category_rate is NULL for numeric features and the prediction');

-- A relation lacking features: all named at once.
CREATE TEMP TABLE dlack AS SELECT a FROM dt;
SELECT throws_ok($$SELECT * FROM gbdt_drift((SELECT bin FROM dm), 'dlack')$$, '42703',
                 'gbdt_drift: relation "dlack" lacks 3 feature columns of the model: "b", "c", "col"',
                 'missing features are named all at once');

-- A model stored in format version 1 (before the training distribution):
-- the same training as dm.small, without the section.
CREATE TEMP TABLE old AS SELECT ('gbdt1:R0JEVE1ETAABAAAAjREAAAAAAAABAAAAAQAAAKwcWmQ7398/AQAAAF48+YxTYoC/AwAAAAEAAABhAAEAAABiAAEAAABjAA'
   || 'IAAAAAAAAAAAAAAAAAAAAAAPA/BAAAAAAAAAD/AAAA/gEAAP0CAAD9AgAApptEO0Jg5TtYOTQ8j8J1POOlmzx/arw8Gy/dPLbz/T'
   || 'wpXA89d74fPcUgMD0Sg0A9zcxMPRsvXT1okW09tvN9PQIrhz0pXI89UI2XPXe+nz2e76c9xSCwPexRuD0Sg8A9ObTIPRfZzj09Ct'
   || 'c9ZDvfPYts5z2yne892c73PQAAAD6TGAQ+JzEIPrpJDD5OYhA+4XoUPnWTGD7jpRs+d74fPgrXIz6e7yc+MQgsPsUgMD5YOTQ+7F'
   || 'E4Pn9qPD4Sg0A+pptEPjm0SD7NzEw+O99PPs/3Uz5iEFg+9ihcPolBYD4dWmQ+sHJoPkSLbD7Xo3A+arx0Pv7UeD6R7Xw+AACAPk'
   || 'oMgj6TGIQ+3SSGPicxiD5xPYo+ukmMPgRWjj5OYpA+mG6SPuF6lD4rh5Y+dZOYPqwcmj72KJw+PzWePolBoD7TTaI+HVqkPmZmpj'
   || '6wcqg++n6qPkSLrD6Nl64+16OwPiGwsj5YObQ+okW2PuxRuD41Xro+f2q8Psl2vj4Sg8A+XI/CPqabxD7wp8Y+ObTIPoPAyj7NzM'
   || 'w+BFbOPk5i0D6YbtI+4XrUPiuH1j51k9g+vp/aPgis3D5SuN4+nMTgPuXQ4j4v3eQ+ZmbmPrBy6D76fuo+RIvsPo2X7j7Xo/A+Ib'
   || 'DyPmq89D60yPY+/tT4Pkjh+j6R7fw+2/n+PolBAD+uRwE/000CP/hTAz8dWgQ/QmAFP2ZmBj+LbAc/sHIIP9V4CT/6fgo/H4ULP0'
   || 'SLDD/fTw0/BFYOPylcDz9OYhA/c2gRP5huEj+8dBM/4XoUPwaBFT8rhxY/UI0XP3WTGD+amRk/NV4aP1pkGz9/ahw/pHAdP8l2Hj'
   || '/ufB8/EoMgPzeJIT9cjyI/gZUjP6abJD/LoSU/ZmYmP4tsJz+wcig/1XgpP/p+Kj8fhSs/RIssP2iRLT+Nly4/sp0vP9ejMD/8qT'
   || 'E/IbAyP7x0Mz/hejQ/BoE1PyuHNj9QjTc/dZM4P5qZOT++nzo/46U7PwisPD8tsj0/Urg+P3e+Pz8Sg0A/N4lBP1yPQj+BlUM/pp'
   || 'tEP8uhRT/wp0Y/FK5HPzm0SD9eukk/g8BKP6jGSz/NzEw/aJFNP42XTj+ynU8/16NQP/ypUT8hsFI/RrZTP2q8VD+PwlU/tMhWP9'
   || 'nOVz/+1Fg/mplZP76fWj/jpVs/CKxcPy2yXT9SuF4/d75fP5zEYD/BymE/5dBiPwrXYz8v3WQ/VONlP/CnZj8Urmc/ObRoP166aT'
   || '+DwGo/qMZrP83MbD/y0m0/F9luPzvfbz9g5XA/hetxP6rxcj9GtnM/arx0P4/CdT+0yHY/2c53P/7UeD8j23k/SOF6P23nez+R7X'
   || 'w/tvN9P9v5fj/Hv38/GTNFO/IQ5jssxDQ83392PMkdnDyj+7w8fNndPFa3/jyXyg89hDkgPXGoMD2j+zw9j2pNPXzZXT1pSG49Vr'
   || 'd+PSGThz2Xyo89DgKYPYQ5oD37cKg9k5quPQrStj2ACb899kDHPW14zz3jr9c9WuffPdAe6D1pSO4933/2PVa3/j1mdwM+IZMHPt'
   || 'yuCz6Xyg8+U+YTPg4CGD7aFhs+lTIfPlFOIz4Maic+x4UrPoKhLz49vTM++dg3PsXtOj6ACT8+OyVDPvZARz6yXEs+bXhPPiiUUz'
   || '7jr1c+nstbPlrnXz4m/GI+4RdnPpwzaz5YT28+E2tzPs6Gdz6Jons+RL5/PgDtgT7d+oM+uwiGPiGThz7/oIk+3K6LPrq8jT6Xyo'
   || '8+ddiRPlPmkz4w9JU+DgKYPnSMmT5Smps+L6idPg22nz7qw6E+yNGjPqbfpT6D7ac+YfupPseFqz6lk60+gqGvPmCvsT49vbM+G8'
   || 'u1PvnYtz7W5rk+PHG7Php/vT74jL8+1ZrBPrOowz6QtsU+bsTHPkvSyT4p4Ms+j2rNPm14zz5KhtE+KJTTPgai1T7jr9c+wb3ZPp'
   || '7L2z582d0+WuffPjf14T4VA+Q+e43lPlmb5z42qek+FLfrPvHE7T7P0u8+reDxPoru8z5o/PU+RQr4PiMY+j4BJvw+3jP+PkS+/z'
   || '4R5gA/AO0BP+/zAj/d+gM/zAEFP7sIBj+qDwc/mRYIP4cdCT92JAo/ZSsLP1QyDD+H9ww/dv4NP2QFDz9TDBA/QhMRPzEaEj8gIR'
   || 'M/DigUP/0uFT/sNRY/2zwXP8pDGD+4Shk/6w8aP9oWGz/JHRw/uCQdP6crHj+VMh8/hDkgP3NAIT9iRyI/UU4jPz9VJD8uXCU/YS'
   || 'EmP1AoJz8/Lyg/LjYpPx09Kj8LRCs/+kosP+lRLT/YWC4/xl8vP7VmMD+kbTE/k3QyP8Y5Mz+1QDQ/pEc1P5JONj+BVTc/cFw4P1'
   || '9jOT9Oajo/PHE7Pyt4PD8afz0/CYY+P/iMPz8rUkA/GVlBPwhgQj/3ZkM/5m1EP9V0RT/De0Y/soJHP6GJSD+QkEk/f5dKP22eSz'
   || '9cpUw/j2pNP35xTj9teE8/XH9QP0qGUT85jVI/KJRTPxebVD8GolU/9KhWP+OvVz/Stlg/BXxZP/SCWj/jiVs/0pBcP8CXXT+vnl'
   || '4/nqVfP42sYD98s2E/arpiP1nBYz9IyGQ/N89lP2qUZj9Zm2c/R6JoPzapaT8lsGo/FLdrPwO+bD/xxG0/4MtuP8/Sbz++2XA/re'
   || 'BxP5vncj/OrHM/vbN0P6y6dT+bwXY/ish3P3jPeD9n1nk/Vt16P0Xkez8063w/IvJ9PxH5fj+Uv38/FQJIO8RX6Ts+Vzc8mwJ6PJ'
   || 'ABljw+V7c87KzYPJsC+jxvgQk9RiwaPR3XKj30gTs9yyxMPaLXXD3EV2k9mwJ6PblWhT0krI09kAGWPaFBnD0Ml6Q9eOysPeNBtT'
   || '1Pl709YNfDPcsszD03gtQ9otfcPQ4t5T15gu095df1PfYX/D2xNgI+ZmEGPm+BCT4krA0+2tYRPpABFj6YIRk+/FYePgR3IT66oS'
   || 'U+b8wpPiX3LT7bITI+kUw2PplsOT5Plz0+BcJBPrrsRT5wF0o+eTdNPi5iUT7kjFU+mrdZPlDiXT4FDWI+uzdmPnFiaj4njW4+3b'
   || 'dyPpLidj5IDXs+/jd/PlqxgT5eQYM+uVaFPmvxhz5vgYk+ypaLPiSsjT5/wY8+2taRPjXskz6QAZY+6xaYPkYsmj5KvJs+pdGdPg'
   || 'Dnnz5b/KE+thGkPhAnpj5rPKg+xlGqPiFnrD58fK4+gAywPtshsj42N7Q+kUy2PuxhuD7w8bk+Swe8PqYcvj4BMsA+W0fCPrZcxD'
   || '667MU+FQLIPnAXyj7LLMw+z7zNPirSzz6F59E+4PzTPjsS1j4/otc+8TzaPvXM2z5Q4t0+q/ffPgUN4j4KneM+ZbLlPr/H5z4a3e'
   || 'k+dfLrPnmC7T7Ul+8+L63xPjM98z7l1/U+6Wf3PkR9+T6fkvs++qf9PlW9/z6spgA/WrEBPwe8Aj+1xgM/YtEEP2SZBT8SpAY/a/'
   || 'EHP225CD8axAk/x84KP3XZCz8i5Aw/0O4NP335Dj8rBBA/2A4RP4YZEj8zJBM/4C4UP+P2FD+QARY/PQwXP+sWGD+YIRk/RiwaP/'
   || 'M2Gz+hQRw/TkwdP1AUHj/+Hh8/qykgP1k0IT8GPyI/s0kjP2FUJD8OXyU/vGkmP2l0Jz8Xfyg/xIkpP3KUKj90XCs/IWcsP89xLT'
   || '98fC4/fkQvP9eRMD/ZWTE/hmQyPzRvMz/heTQ/j4Q1PzyPNj8+Vzc/7GE4P5lsOT+bNDo/ST87P/ZJPD+kVD0/UV8+P/5pPz8BMk'
   || 'A/rjxBP1tHQj8JUkM/tlxEP7gkRT9mL0Y/EzpHP8FESD9uT0k/cBdKPx4iSz/LLEw/eTdNPyZCTj8oCk8/1hRQP4MfUT8wKlI/3j'
   || 'RTP+D8Uz+NB1U/OxJWP+gcVz+WJ1g/QzJZP0X6WT/zBFs/oA9cP04aXT/7JF4/qC9fP1Y6YD8DRWE/BQ1iP15aYz8MZWQ/Di1lP7'
   || 's3Zj9pQmc/Fk1oP8RXaT9xYmo/Hm1rPyE1bD95gm0/J41uP9SXbz+ConA/hGpxPzF1cj/ff3M/jIp0PzqVdT/nn3Y/lKp3P0K1eD'
   || '/vv3k/ncp6P0rVez/433w/+qd9P6eyfj+lvn8/AwAAAAAAAAAAAAAAAAAAAAMAAAADAAAAAAAAAAAAAAAAAAAABwAAAAEAAAADAA'
   || 'AABQAAAP////////////////////8HAAAAAgAAAAQAAAAGAAAA/////////////////////wcAAAD/////AAAAAAAAAAABAAAAAQ'
   || 'AAAAIAAAACAAAABwAAAAAAAAACAAAAAgAAAP////////////////////8HAAAAdQAAALAAAABNAAAAAAAAAAAAAAAAAAAAAAAAAA'
   || 'cAAABEi+w+2VkxP0q8mz4AAAAAAAAAAAAAAAAAAAAABwAAAAABAAAAAAAHAAAAwsL4rs6CqL7pw5A+A3QHv8f8WD44rYq+pc34Pg'
   || 'cAAABdYkJEfYHRQ8GE/UMAAAAAAAAAAAAAAAAAAAAABwAAAIFqi2znb4dA8PixSumndUAS3GSO5Td5QN3Autben29AB2JSfedfV0'
   || 'AdVnef4w9bQIsGh6bsc3JABwAAAAEAAAADAAAABQAAAP////////////////////8HAAAAAgAAAAQAAAAGAAAA//////////////'
   || '///////wcAAAD/////AAAAAAAAAAABAAAAAQAAAAIAAAACAAAABwAAAAAAAAACAAAAAgAAAP////////////////////8HAAAAnA'
   || 'AAAJsAAAAnAAAAAAAAAAAAAAAAAAAAAAAAAAcAAACkcB0/oUEcP/xWHj4AAAAAAAAAAAAAAAAAAAAABwAAAAABAAAAAAAHAAAA66'
   || 'SruSGoRL6db5s+8znMvkJIOD6wM6O+/2HQPgcAAAByjOdDYuS7Q2FNR0MAAAAAAAAAAAAAAAAAAAAABwAAAMswifGCSoZAYqX8mt'
   || '1Ze0AzvBVIKDtxQB6iFKU3k3FAhwbQ60uNY0BnzL/IW35DQE2F+525lm1ABwAAAAEAAAADAAAABQAAAP////////////////////'
   || '8HAAAAAgAAAAQAAAAGAAAA/////////////////////wcAAAD/////AAAAAAAAAAABAAAAAQAAAAIAAAACAAAABwAAAAAAAAACAA'
   || 'AAAgAAAP////////////////////8HAAAATgAAANcAAABzAAAAAAAAAAAAAAAAAAAAAAAAAAcAAAA/NZ4+lidYP7/H5z4AAAAAAA'
   || 'AAAAAAAAAAAAAABwAAAAABAAAAAAAHAAAA31UiupaipL5JOxA+GqDUvpvtWj56ECy+LX63PgcAAAAC6qVD8l/iQvPAqkMAAAAAAA'
   || 'AAAAAAAAAAAAAABwAAAPfmE28wfoRAGWVoXroHaUBhm/Oug3h8QGMJjcsaU2VAtt3alvykPUCmPmD7vYpnQA18Q7Eks3BADQAAAA'
   || 'kAAABvYmplY3RpdmUPAAAAYmluYXJ5OmxvZ2lzdGljAwAAAGV0YRMAAAAwLjI5OTk5OTk5OTk5OTk5OTk5CQAAAG1heF9kZXB0aA'
   || 'EAAAAyEAAAAG1pbl9jaGlsZF93ZWlnaHQBAAAAMQYAAABsYW1iZGEBAAAAMQUAAABhbHBoYQEAAAAwBQAAAGdhbW1hAQAAADAOAA'
   || 'AAbWF4X2RlbHRhX3N0ZXABAAAAMAcAAABtYXhfYmluAwAAADI1NgkAAABzdWJzYW1wbGUBAAAAMRAAAABjb2xzYW1wbGVfYnl0cm'
   || 'VlAQAAADEJAAAAbnVtX3JvdW5kAQAAADMEAAAAc2VlZAEAAAAwuAsAAAAAAAAAAAAAAAAAAAAAAAAAAAAABwAAAGxvZ2xvc3MBAA'
   || 'AA+iremeYU2T8AAAAA/////0eCwP2AbVmi')::gbdt_model AS m;
SELECT is((SELECT get_byte(decode(substr(m::text, 7), 'base64'), 8) FROM old), 1,
          'the stored model is of format version 1');
SELECT is((SELECT count(*) FROM dt, old, dm
           WHERE gbdt_predict(old.m, ARRAY[a, b, c]::float8[]) IS DISTINCT FROM gbdt_predict(dm.small, ARRAY[a, b, c]::float8[])),
          0::bigint, 'it loads and predicts bit-identically to the same training with the section');
SELECT throws_like($$SELECT * FROM gbdt_drift((SELECT m FROM old), 'dt')$$,
                   '%holds no training distribution%', 'gbdt_drift says what an older model lacks');

-- The decoder treats the section as hostile: a prediction count above
-- the rows (the last 8 bytes before the checksum) is refused.
\ir ../lib/reseal.sql
SELECT throws_like(format($$SELECT %L::gbdt_model$$,
  (SELECT 'gbdt1:' || translate(encode(pg_temp.reseal(set_byte(b, length(b) - 9, 1)), 'base64'), E'\n', '')
   FROM (SELECT decode(substr(small::text, 7), 'base64') AS b FROM dm) s)),
  '%prediction counts exceed the rows%', 'a tampered training distribution is refused');

SELECT * FROM finish();
ROLLBACK;
