"""Rank diseases for a patient's observed and excluded HPO findings.

Method (parameters in `RankParams`; defaults chosen by 5-fold cross-validation, folds split
by publication, leave-publication-out, on the development phenopackets — see
`bench/rank_accuracy.py`):

1. Findings are resolved to current HPO terms (alt and obsolete ids follow HPO's
   replacements). Each candidate is a *profile*: an OMIM disease pooled with the ORPHA /
   DECIPHER entries the KB declares equivalent (same MONDO class).
2. **Patient → disease** (log-likelihood-ratio style Resnik). For finding ``t`` and
   profile ``d``: ``max over ancestors x of t of IC(x) + freq_weight · ln f(d, x)``, where
   ``IC(x) = -ln P(x)`` over annotated diseases and ``f(d, x)`` is the highest curated
   frequency of ``d``'s features at or below ``x`` (0.5 when not stated). ``IC(x)`` is
   the log of 1 / background probability, ``ln f`` the log of the disease-specific one,
   so a match on a rare feature the disease shows often weighs most; a more specific
   patient term than the disease's is matched through their shared ancestor. Averaged
   over findings.
3. **Disease → patient** (`symmetric` share): the frequency-weighted mean, over the
   disease's features, of the IC of their best shared ancestor with any *examined*
   finding (observed, and with `symmetric_checked` also excluded ones). It favours
   diseases whose characteristic features were looked at, and penalises diseases with
   many frequent features the patient was never described with — mildly.
4. **Examined-but-absent findings** (`checked_weight`): published case descriptions list
   the absence of features expected for the diagnosis under consideration, so an
   excluded finding that a disease is annotated with is, on real cases, evidence that
   the disease was considered. Measured: top-1 32.7 % → 40.3 %, top-10 58.1 % → 61.4 %
   (in-KB, leave-publication-out, `checked_weight` 0 vs 0.45);
   the penalty reading (`excluded_weight`: ``-ln(1 - 0.95 f(d, e))`` per excluded term)
   lowered accuracy at every weight tried and defaults to 0. Both are global weights.
   **One mean over examined findings** (`checked_in_mean`): the excluded findings' matches
   join the observed ones' in one weighted mean, each counting ``checked_weight`` of an
   observed finding — ``(Σ observed + w Σ excluded) / (n_observed + w n_excluded)`` — instead
   of adding ``checked_weight`` times their own mean. Added apart, one excluded finding
   among ten observed weighed as much as four or five of them, and ten excluded findings
   together no more than one; in one mean each counts the same fraction of a finding.
   Measured (in-KB, leave-publication-out, other defaults as tuned, whole file): added apart
   at 0.45, 44.8 / 56.7 / 68.7 % top-1 / 3 / 10, MRR 0.529; in one mean at ``w`` 0.15 /
   0.3 / 0.45 / 0.6 / 0.8 / 1.2: top-1 44.6 / 45.4 / 45.7 / 46.1 / 45.7 / 45.3 %, top-10
   69.0 / 69.7 / 69.9 / 69.7 / 69.3 / 68.3 %. Every cross-validation fold chose it
   (``w`` 0.3 in three folds, 0.45 and 0.8 in one each, searching 400 training cases; 0.6
   in three, 0.45 and 0.8 in one each, searching all of them). Measured and rejected with it:
   the excluded findings' sum divided by the number of observed findings (at best 44.9 %),
   or by observed + excluded while the observed mean stays apart (45.1 %), and both sums
   over observed + excluded without weighting the count (45.5 % at ``w`` 1; 42.5 / 45.2 /
   45.1 / 44.8 % at 0.45 / 0.8 / 1.25 / 1.5).
5. `negated_weight` (curated NOT_HAS_PHENOTYPE contradicting a finding), `size_prior` /
   `publication_prior` (log number of features / publications) and `collapse_redundant`
   (drop findings that are ancestors of other findings) are available; none improved
   accuracy on a 626-case development sample (leave-publication-out), so they are 0 and
   were left out of the final search. `noise` (a floor on a finding's log-ratio) was
   searched and stays 0.

6. **Borrowing from the phenotypic series** (`sibling_prior`): under leave-publication-out
   394 in-KB cases lose every annotation of their disease and many more keep only a few.
   Profiles sharing a MONDO parent class (the KB's disease ``IS_A`` class relations,
   e.g. the members of one phenotypic series) are *siblings*; each score is shrunk toward
   the best sibling's score with weight ``sibling_prior / (sibling_prior + own visible
   features)`` and a profile with nothing visible ranks just below that sibling (item 16;
   until then it took the sibling's unshrunk score). Sibling scores obey `exclude_sources` like any
   other. Measured (in-KB, leave-publication-out, other parameters as tuned):
   top-1 / top-10 40.3 % / 61.4 % without; 40.3 % / 65.9 % when only empty profiles
   borrow; 43.1 % / 66.0 % with ``sibling_prior=4``. Borrowing the siblings' *mean*
   (each shared class weighted 1 / its size) instead of the best one gave only
   41.4 % / 62.3 % at its best prior (1). Measured and not adopted: borrowing finding by
   finding — the profile shrunk toward a score in which each finding takes the better of
   its own match and the best sibling's (the disease → patient side the sibling's) —
   in-KB top-1 / 3 / 10, MRR, ``checked_weight`` 0.3: leave-publication-out 45.4 / 58.1 /
   69.7 %, 0.537 → 45.4 / 58.3 / 69.9 %, 0.538, everything visible 66.8 / 76.0 / 83.1 %,
   0.726 → 67.7 / 76.4 / 83.6 %, 0.732; at 0.6: 46.1 / 58.2 / 69.7 % → 46.0 / 58.2 / 69.6 %
   and 67.0 / 76.1 / 83.0 % → 67.4 / 76.6 / 83.0 %. Taking the better of the two
   disease → patient sides as well lowered both (42.7 % and 64.9 % top-1).
7. Rejected after measurement: subtracting from each profile the score an uninformative
   patient would get (mean match of 200 annotation-weighted random terms, recomputed
   from the visible profile), i.e. Phenomizer-like per-profile normalisation. At weight
   0.3 top-1 fell 40.3 % → 39.1 % (top-10 unchanged at 61.4 %), at 0.6 to 34.7 % /
   59.5 %; coverage is not what lets large profiles win here.
8. Rejected after measurement: onset vs age. A global penalty when the patient's age at
   last encounter is below a disease's earliest curated onset (HAS_ONSET lower bounds:
   congenital / neonatal 0, infantile 28 days, childhood 1, juvenile 5, adult 16,
   middle age 40, late 60 years; 3,036 of the 4,171 cases state an age) moved top-1 by
   -0.2 to 0.0 points and top-10 by 0.0 to +0.1 at penalties 0.1–1 and slack 0–5 years —
   even with the case's own onset facts left visible — so age stays unused.

9. **The very term** (`exact_weight`, `exact_symmetric`): a finding that a profile is
   annotated with *exactly* (same HPO id, not only a relative) adds ``exact_weight ·
   IC(term)`` to its match, and a disease feature examined as such adds
   ``exact_symmetric · IC(feature)`` to the disease → patient side. Case reports and
   annotations are curated in one controlled vocabulary, so naming the identical term is
   stronger evidence than sharing an ancestor of equal information content. Measured
   (in-KB, leave-publication-out, other parameters as before, ``freq_weight`` 0.25):
   top-1 43.1 % → 44.6 % at ``exact_weight`` 0.1 (a flat bonus; 44.9 % scaled by IC);
   with ``freq_weight`` 0.1 and both bonuses at 0.2: 45.6 % / 55.7 % / 67.2 %, MRR 0.526.
   Rejected after measurement: the same bonus for any term at or above a disease
   feature (44.1 %), an IC-weighted mean over findings (45.4 %), adding TF-IDF similarity
   to every profile's MONDO description (45.0 % at the smallest weight tried), OMIM–ORPHA
   pooling through shared genes (42.2–42.6 %), and phenotypic-series siblings through
   shared genes (+0.3 points).
10. Rejected because its gain was a leak: a learned re-ranking of the top 60 candidates
   (conditional logit, 5-fold by publication) over the score and eight features of each
   match — share of findings explained, exactly annotated (observed and excluded), best
   match, visible feature and publication counts, "scored only through its series".
   Held out it lifted top-1 45.6 % → 49.7 %, but all of that came from features that the
   left-out publication itself shapes: a candidate with no visible fact exists only
   because its facts were hidden (real knowledge bases have no such profile), and the
   gold disease's visible profile is small because it lost the case's own facts. On the
   3,909 cases with no such candidate, the match features alone moved top-1 46.8 % →
   46.8 % (linear) and 47.3 % (gradient-boosted trees); with the counts, 48.9 %.
11. **A named gene** (`gene_weight`, used only when the question names genes): a clinician
   who reports a variant in a gene expects that gene's diseases first, ordered by how well
   they fit the findings, so each disease associated with a named gene (HPO's
   genes_to_phenotype links) gains ``gene_weight`` = 10, more than any spread of phenotype
   scores; one whose own facts are all hidden still joins the tier, at the lowest phenotype
   score. Not part of the phenotype-only benchmark (its questions never name the gene).
   With the case's genes named (in-KB, leave-publication-out, ``--gene-weights``):
   ``gene_weight`` 0 → 45.6 % / 56.2 % / 67.3 % top-1 / 3 / 10; 0.5 → 63.2 / 73.2 /
   80.3 %; 2 → 83.8 / 92.1 / 95.4 %; 10 → 89.6 / 98.4 / 99.9 %.
12. **Sex and X-linked recessive inheritance** (`female_x_recessive`): heterozygous carriers
   of an X-linked recessive disease seldom show it, so for a female patient a disease whose
   every visible mode of inheritance (HAS_INHERITANCE, hidden like any fact when its
   sources are left out) is X-linked recessive loses 0.5 — a penalty, not an exclusion
   (manifesting carriers exist), named under "against" with its source. Of the 4,171
   in-KB cases, none is a female patient with such a diagnosis; the rule moved top-1 /
   top-3 / top-10 from 45.6 / 56.2 / 67.3 % to 45.7 / 56.2 / 67.4 % (MRR 0.528 → 0.529),
   the same from 0.5 up to 2 (mode "any visible mode is X-linked recessive": 45.7 / 56.3 /
   67.4 %). HPO's sex-specific phenotype annotations (639 rows) are not used.
13. Rejected after measurement (in-KB, leave-publication-out, defaults otherwise; 45.7 / 56.2 /
   67.4 %, MRR 0.529): shrinking a profile toward the profile of its MONDO *parent* class
   (1,609 OMIM diseases have one, mostly an Orphanet group entry that is not itself a
   candidate) with weight ``w / (w + visible features)`` — 45.6 / 45.3 / 45.0 % top-1 at w
   0.5 / 2 / 4; the score of an annotation without a frequency (``unknown_frequency`` 0.3 /
   0.7: 45.7 / 45.4 %); information content mixed with the ontology's intrinsic IC (share
   0.3 / 0.6: 45.3 / 44.7 %); leaving out findings below 1 / 2 nats of IC (45.7 / 45.0 %);
   a trimmed mean, each profile's worst-matched 10 / 20 % of findings dropped (45.7 / 45.7 %
   top-1, 67.5 / 67.7 % top-10); match scores raised to the power 0.5 / 0.75 / 1.5 before
   averaging, both directions (45.1 / 45.6 / 45.0 %); information content from curated
   frequencies, ``-ln`` of the mean over candidate profiles of the frequency at or below the
   term, mixed in at 0.3 / 0.6 / 1 (45.5 / 45.6 / 45.6 %, top-10 67.4 / 67.4 / 67.5 %); the
   mean taken per HPO organ system (top-level branch) and then over systems, mixed in at
   0.3 / 0.6 (45.1 / 44.4 %); each finding's matches standardised across profiles before
   averaging, added at 0.1 (40.9 %); hubness corrections — subtracting ``β`` times a
   profile's mean score over 1,500 pseudo-patients drawn from other profiles' features
   (``β`` 0.2 / 0.4 / 0.6: 45.8 / 45.4 / 44.6 %), or over its 20 / 100 best-scoring
   pseudo-patients (CSLS-style, ``β`` 0.1: 45.6 / 45.6 %); the disease → patient mean
   weighted by ``IC^a`` besides frequency (``a`` 0.5 / 1: 45.7 / 45.7 %); a `symmetric`
   share that grows or shrinks with 1 / number of findings (≤ 44.2 %). None raises top-1
   by more than 0.1 points, no more than neighbouring settings of the tuned grid differ.

14. **Wider MONDO linking** (a knowledge-base change, `knowledge/mondo.py`): diseases reach
   their MONDO class also when their name matches with the words in another order, Roman
   numerals as numbers or without descriptive words, so 1,378 more OMIM and 192 more ORPHA
   diseases join their phenotypic series (`sibling_prior`) and their OMIM–ORPHA profile.
   In-KB, leave-publication-out, tuned defaults: 45.7 / 56.2 / 67.4 % → 46.5 / 57.1 / 68.3 %,
   MRR 0.529 → 0.537 (held out 45.0 / 55.8 / 66.9 % → 45.6 / 57.1 / 67.9 %; the folds' choices
   keep every default). Of the gain, 0.5 points of top-1 come from the new series links and
   0.3 from the new OMIM–ORPHA pooling. With everything visible the new series links cost
   0.5 points of top-1 (66.7 → 66.2 %; top-10 81.9 → 82.0 %): borrowing helps most where a
   profile is thin, which the honest protocol makes it. Measured and rejected with it:
   series through MONDO grandparent classes as well (in-KB 47.7 % top-1 but top-10 68.3 →
   68.0 %, and with everything visible top-10 82.0 → 80.1 %: a thin profile borrowing from
   ~1,000 relatives, not a series) and series capped at 300 / 100 / 40 members (46.1 / 45.6
   / 45.2 %); series read from OMIM names alone ("Deafness, autosomal recessive" + a number)
   +0.2 points; MONDO descriptions read as HPO terms and added as annotations of their
   disease (+0.3 points of top-1 under both protocols; not built yet: the knowledge-base
   build would need the question reader, which sits a layer above it).

15. **A known causal gene** (`no_gene_penalty`): a disease with no gene known to cause it
   (no visible ``ASSOCIATED_GENE`` fact, from HPO's genes_to_phenotype, for any of its pooled
   ids; 1,797 of 8,352 OMIM profiles) loses ``no_gene_penalty`` — a prior, not an exclusion,
   named under "against". Diagnoses made today are mostly molecular, and a disease entry with
   no known gene (OMIM's provisional and susceptibility entries, clinically defined groups)
   is rarely the answer; a knowledge base with no gene fact at all lowers nothing. Measured
   (in-KB, tuned defaults otherwise): leave-publication-out 46.5 / 57.1 / 68.3 % → 46.9 / 57.4
   / 68.6 % at 0.25, 47.0 / 57.5 / 68.8 % at 0.5 and 47.0 / 57.6 / 68.8 % (MRR 0.537 → 0.543)
   at 1 and 2; everything visible 66.2 / 74.4 / 82.0 % → 66.7 / 74.8 / 82.4 % at 1. All five
   folds chose 1 (held out: 45.6 / 57.1 / 67.9 % → 46.2 / 57.2 / 68.8 %). With item 16's
   correction: 44.5 / 56.2 / 67.9 % → 45.0 / 56.6 / 68.4 %, MRR 0.524 → 0.528. Measured and
   rejected with it: a penalty for a disease with no curated mode of inheritance (118
   profiles; no change at 0.1–0.25, −0.2 points of top-10 at 1) and a bonus growing with
   the number of known genes (−0.3 to −1.0 points of top-1).

16. **A profile that shows nothing ranks below its lender** (a correction). A profile with
   no visible fact took its best sibling's score *before* that sibling's own shrinkage
   toward the rest of its series, so it usually ranked *above* the very disease it borrowed
   from. Under leave-publication-out such a profile is almost always the gold disease (of
   the 392 cases with one, 376 are the gold), so this rewarded the hiding itself: in 273 of
   those 376 cases the gold ranked above all its siblings, 87 of them first. A real
   knowledge base has no such profile except through `exclude_sources`, and a disease that
   shows nothing should not outrank the one whose evidence stands in for it. It now takes
   that sibling's final score and sits just below it; the no-known-gene penalty is applied
   before borrowing, so it cannot reorder the two either (an empty profile without a gene
   bears its own penalty below that). Cost (in-KB, leave-publication-out,
   tuned defaults): 47.0 / 57.6 / 68.8 % → 45.0 / 56.6 / 68.4 %, MRR 0.543 → 0.528 (top-1 of
   the cases whose gold loses every fact: 22.9 % → 0.3 %, top-10 59.0 % → 55.9 %); with
   everything visible no profile is empty and the figures stay (66.6 / 74.7 / 82.4 %).
   Figures in the items above were measured with the earlier rule; the table below gives
   both.

17. **What a disease's name states** (`name_findings`, a knowledge change, no parameter):
   catalogue names often carry the defining finding ("Deafness, autosomal recessive 102",
   "Hyperammonemia due to carbonic anhydrase VA deficiency"). The phrase index reads each
   OMIM candidate's name (present findings only; 6,564 facts for 5,072 diseases) and the
   findings join its profile at the unknown frequency, cited to the disease's own id, so
   leaving a publication out never hides them. They are matched like any feature (both
   directions, the very-term bonus) but are not *counted* as features: a profile's visible
   size (how much it borrows from its series) and whether it is empty stay those of its
   curated facts, so a disease whose curated facts are all hidden is still scored through
   its series and never revived by its name. In-KB, leave-publication-out, tuned defaults:
   46.1 / 58.2 / 69.7 % → 46.6 / 58.9 / 69.7 %, MRR 0.539 → 0.545; everything visible 67.0
   / 76.1 / 83.0 % → 67.4 / 76.6 / 83.1 %, MRR 0.726 → 0.730. By how much of the gold
   disease the case's own publications carry (``--by-hidden``), top-1 moves 46.9 → 47.2 %
   (none), 66.7 → 67.6 % (half or fewer), 3.3 → 3.3 % (more than half) and 0.3 → 0.3 % (all):
   the gain is where the gold keeps its facts, not a reward for hiding them. Measured and
   not adopted: the name facts at frequency 1 (46.2 %), read for ORPHA entries too (46.5 %;
   at frequency 1, 46.0 %), left out of the disease → patient side (46.2 %), the linked MONDO
   class's label (46.6 %) or label and synonyms (46.5 %) read as well, and MONDO descriptions
   read the same way (46.4 %, top-10 69.9 %).
18. Rejected after measurement (in-KB, leave-publication-out, tuned defaults, before item 17;
   46.1 / 58.2 / 69.7 %): pooling an OMIM disease with an Orphanet entry that shares one of
   its genes and is either its MONDO class's parent (1,201 diseases; 43.8 % top-1) or reads
   alike (token Jaccard ≥ 0.6 / 0.4 between the names, only for profiles without an Orphanet
   member: 776 / 1,243 diseases; 44.7 / 44.2 %) — such entries are mostly the umbrella of a
   series ("Loeys-Dietz syndrome" for each of its six OMIM types) and make its members alike;
   and a simGIC set similarity (information content of the shared ancestors over that of
   their union) added to the score at 0.5 / 1 / 2 (45.2 / 44.1 / 41.9 %).
19. Rejected after measurement (in-KB, leave-publication-out, tuned defaults with item 17;
   46.6 / 58.9 / 69.7 %): capping the excluded findings' share of item 4's mean at ``c``
   times the number of observed findings, so that a cohort report listing dozens of absent
   features (whose matches favour richly annotated diseases) weighs no more than its
   observed ones — ``c`` 0.25 / 0.5 / 1 / 2: 44.0 / 45.7 / 46.2 / 46.4 % top-1, top-10 68.6 /
   69.1 / 69.3 / 69.6 %. Every absent finding a report lists keeps its weight. Measured and not
   adopted with it: a trimmed mean over observed findings, each profile's worst-matched 10 / 20
   / 30 % dropped (46.7 / 46.8 / 46.7 %, top-10 69.7 / 69.7 / 69.8 %, MRR 0.546 / 0.546 /
   0.545): within what neighbouring settings of the tuned grid differ by. And, again with this
   release's ranker, item 9's siblings through a shared gene (OMIM diseases associated with
   one gene, an allelic series, as siblings besides the MONDO series; 3,572 memberships):
   46.7 / 59.2 / 70.3 %, MRR 0.548, but the gain lies where the case's own publication thins
   the gold's profile (top-10 of the groups of `--by-hidden`: none 71.2 → 71.3 %, half or fewer
   84.5 → 84.7 %, more than half 9.6 → 13.6 %, all 57.7 → 59.8 %) and with everything visible
   top-1 falls 67.4 → 67.1 % (top-10 83.1 % both): borrowing from allelic diseases mostly
   stands in for what the protocol hides, which a real knowledge base does not lack.
20. **When the illness began** (`onset_weight`, used when the question states an onset). HPO
   defines its onset classes by age, so the patient's onset (a class or an age,
   `onset.py`) and a profile's visible HAS_ONSET facts compare as age ranges; a profile
   whose curated onsets all lie outside the patient's loses ``onset_weight`` times the
   distance to the nearest, in natural-log months (`onset.onset_gap`), and one with no
   visible onset loses nothing. Applied with the no-known-gene penalty, before borrowing,
   for the same reason (item 16). The dev file's phenopackets give the disease's onset, or
   onsets of single features, for 3,223 of 5,243 usable cases; the evaluation states the
   disease's onset, else the earliest feature onset. In-KB, leave-publication-out, tuned
   defaults otherwise: 46.6 / 58.7 / 69.7 %, MRR 0.545 without; ``onset_weight`` 0.05 / 0.1
   / 0.2 / 0.3: 47.0 / 46.8 / 46.6 / 46.1 % top-1, 69.8 / 69.9 / 69.6 / 69.3 % top-10,
   MRR 0.548 / 0.548 / 0.545 / 0.541. Measured and not adopted: the penalty applied after
   borrowing (an empty profile taking its lender's), 47.1 / 59.0 / 69.6 % at 0.1, and a flat
   penalty for any gap beyond 0.3 / 0.7 / 1.5 log months, no better than the graded one in a
   re-ranking of each case's top 300.
21. Rejected after measurement (in-KB, leave-publication-out, tuned defaults with item 20;
   46.8 / 59.0 / 69.9 %, MRR 0.548). In the cases whose gold keeps every fact, the disease
   ranked above it is the larger profile in 68 % of the misses, and one richly annotated
   syndrome is first in 104 in-KB cases, never its own. So: `size_prior` counted on the
   *visible* profile lifted top-1 to 47.2 % at -0.05 (top-10 69.9 %), but that rewards the
   gold's profile for being thinned by the left-out publication (with everything visible
   the half-or-fewer group fell 88.9 → 88.1 %); counted on every curated fact, so hiding
   changes nothing, -0.025 / -0.05 / -0.1 gave 47.1 / 46.9 / 45.6 % top-1 and 68.8 / 67.8 /
   65.4 % top-10. The disease → patient mean shrunk toward 0 by a pseudo-weight of
   0.5 / 1 / 2 / 4 features (a profile of one matched feature scored as if certain):
   46.6 / 46.4 / 46.2 / 45.2 % top-1. An excluded finding counted as "considered" only
   through an ancestor holding at least 0.25 / 0.5 / 0.75 / 1 of its information content:
   46.7 / 46.7 / 45.9 / 45.3 % top-1, top-10 69.6 / 69.3 / 69.7 / 69.9 %. The first is
   ``--set size_prior=-0.05``; the others were measured on the ranker edited for the purpose
   and not kept.
22. Rejected after measurement (in-KB, leave-publication-out, item 20's defaults,
   ``sibling_prior`` 4 and ``onset_weight`` 0.1; 46.8 / 59.0 / 69.9 %, MRR 0.548). Of the
   1,044 misses among the cases whose gold keeps every fact, the disease ranked first explains the patient's findings better than the gold in 80 % (the
   patient → disease mean), the disease → patient side in 55 % and the excluded findings in
   38 %: the gold's annotations lack what the paper describes, which no weighting restores.
   Tried for it: a match through an ancestor under which the disease's features lie only on
   *other* branches (it predicts a different finding, as a ventricular septal defect for an
   atrial one) keeping only ``1 - δ`` of that ancestor's information content, while a
   disease curated at the ancestor itself (a less specific word for the same finding) keeps
   all of it. ``δ`` 0.1 / 0.2 / 0.35: 47.0 / 46.7 / 46.4 % top-1, 70.0 / 70.0 / 69.7 %
   top-10, MRR 0.549 / 0.547 / 0.545; the same on the disease → patient side as well
   (``δ`` 0.1 / 0.25 there, 0.1 here): 47.0 / 46.8 % top-1, 70.0 % top-10, MRR 0.549 /
   0.548. The best is eight cases, within what neighbouring settings of the tuned grid
   differ by. And the gaps filled from the series: in the patient → disease mean each
   finding takes the better of its own match and ``λ`` times the best sibling's match for
   it, before item 6's shrinkage. ``λ`` 0.25 / 0.5: 47.0 / 46.6 % top-1, 69.6 / 68.7 %
   top-10, MRR 0.548 / 0.541; at 0.5 the cases whose gold keeps every fact fell 48.2 →
   47.7 % top-1 (71.4 → 70.3 % top-10), with everything visible too (48.3 → 48.0 %): series
   members grow alike, and the confusions between them are already the commonest miss.
   And the priors weighed against the evidence: a score is a *mean* over findings, so a
   fixed penalty (no known gene, a distant onset) weighs more against a patient with many
   findings than a likelihood sum would; scaled by ``(12 / n)^γ`` (``n`` the examined
   findings as counted in item 4's mean, 12 its median): ``γ`` 0.5 / 1 gave 46.6 / 46.3 %
   top-1, 69.8 / 69.9 % top-10; with item 21's size prior on every curated fact, scaled the
   same way (``γ`` 1), -0.025 / -0.05 gave 46.0 / 45.2 % top-1, 68.1 / 67.0 % top-10.
   All were measured on the ranker edited for the purpose and not kept.

Leaving sources out: facts whose every source is in `exclude_sources` are hidden at query
time; the profiles that used them are re-scored from their remaining facts (no
precomputed score or cached match row leaks them) and a profile with no fact left is not
ranked. Information content stays global — it measures how common a feature is among all
diseases, not which disease the case has — and a merged fact's frequency is the mean of
all its sources' frequencies (the HPO relation builder merges them before we see them).

Tuned defaults: ``freq_weight=0.25, symmetric=0.3, symmetric_checked=True,
checked_weight=0.6, checked_in_mean=True, sibling_prior=2, exact_weight=0.3,
exact_symmetric=0.4, no_gene_penalty=1, onset_weight=0.05`` — one coordinate-search round per
publication-split fold over `bench/rank_accuracy.py`'s grid, on all of the fold's ~3,300
training cases (``--folds 5 --train-cases 0``), then the folds' median. That search: all
five folds chose ``checked_in_mean``, ``symmetric`` 0.3, ``exact_weight`` 0.3 and
``no_gene_penalty`` 1; four ``freq_weight`` 0.25 (one 0.1) and ``exact_symmetric`` 0.4 (one
0.2); three ``sibling_prior`` 4 (two 2); ``checked_weight`` 0.6, 0.8, 0.45, 0.6, 0.6. Held
out: 45.3 / 57.4 / 69.2 %, MRR 0.533. The same search on 400 training cases per fold (the
previous defaults, ``checked_weight`` 0.3, the median of 0.3, 0.8, 0.3, 0.45, 0.3) held out
44.6 / 57.3 / 69.2 %, MRR 0.530; with the excluded findings' mean added apart, 44.3 / 56.8
/ 68.4 %, 0.525. The search before that moved ``freq_weight`` 0.1 → 0.25, level on the
whole file. Earlier searches
(``noise``, ``excluded_weight``, ``symmetric_checked``) always chose 0, 0 and True and are
no longer varied. With the name findings (item 17) the same search keeps every default as
the folds' median (``freq_weight`` 0.25, 0.1, 0.25, 0.1, 0.25; ``checked_weight`` 0.6, 0.8,
0.3, 0.8, 0.6; ``sibling_prior`` 2, 4, 2, 4, 4; the others as above in every fold), held
out 45.5 / 58.1 / 69.1 %, MRR 0.536. With the onset (item 20; the name-findings rows below
were measured before the knowledge base's last 52 MONDO links, hence 58.9 against 58.7 %
top-3 with ``onset_weight`` 0), a search on 400 training cases per fold chose
``onset_weight`` 0.1, 0.05, 0.1, 0.05, 0.15 and kept every other default as the median (held
out 46.2 / 58.3 / 69.6 %, MRR 0.543). The same search on every training case (``--folds 5
--train-cases 0``, 46 minutes) chose ``sibling_prior`` 2, 2, 2, 4, 4 and ``onset_weight``
0.05, 0.1, 0.05, 0.05, 0.05, so the folds' medians moved them from 4 and 0.1 to 2 and 0.05;
every other choice kept its default as the median (``freq_weight`` 0.25, 0.1, 0.25, 0.1,
0.25; ``checked_weight`` 0.6, 0.8, 0.6, 0.8, 0.6; the rest the same in every fold). Held out:
46.3 / 58.7 / 69.5 %, MRR 0.543 (folds 43.7, 51.2, 43.5, 47.7 and 45.5 % top-1). On the
whole file the new medians give 47.0 / 59.2 / 70.0 % (2,919 of 4,171 in the top ten, one
short of 70 %), MRR 0.550, against 46.8 / 59.0 / 69.9 %, 0.548, and with everything visible
68.4 / 76.8 / 83.2 %, 0.737, against 67.9 / 76.6 / 83.2 %, 0.733: borrowing less from the
series helps under both protocols. Around it (``--set sibling_prior=V``, leave-publication-out
/ everything visible top-1, top-10): 1 → 46.9 / 68.4 %, 69.6 / 83.1 %; 1.5 → 46.9 / 68.4 %,
69.9 / 83.2 %; 3 → 47.0 / 68.2 %, 69.9 / 83.2 %: 2 sits on a flat top. Not tuned:
``gene_weight=10`` (a tier, item 11) and ``female_x_recessive=0.5`` (item 12).

Accuracy on the 4,171 development cases whose diagnosis the KB annotates (of 5,243 usable),
structured input, ties counted *against* the method (plain Resnik ties often — disease
series curated with identical features — which the "ties for" figures hide):

| protocol | method | top-1 | top-3 | top-10 | MRR |
| --- | --- | --- | --- | --- | --- |
| leave-publication-out | Resnik BMA baseline | 22.3 % | 34.1 % | 46.0 % | 0.303 |
| leave-publication-out | baseline, ties for it | 39.8 % | 45.9 % | 53.2 % | 0.443 |
| leave-publication-out | ranker before sibling borrowing, held-out folds (5-fold CV) | 38.9 % | 50.3 % | 60.5 % | 0.464 |
| leave-publication-out | ranker before sibling borrowing, its tuned defaults | 40.3 % | 51.6 % | 61.4 % | 0.478 |
| leave-publication-out | ranker with `sibling_prior`, held-out folds (5-fold CV) | 42.9 % | 54.6 % | 65.9 % | 0.507 |
| leave-publication-out | ranker with `sibling_prior`, its tuned defaults | 43.1 % | 54.7 % | 66.0 % | 0.508 |
| leave-publication-out | ranker with the exact-term bonus, held-out folds (5-fold CV) | 45.0 % | 55.8 % | 66.9 % | 0.523 |
| leave-publication-out | ranker with the exact-term bonus, tuned defaults | 45.6 % | 56.2 % | 67.3 % | 0.528 |
| leave-publication-out | ranker and `female_x_recessive`, defaults | 45.7 % | 56.2 % | 67.4 % | 0.529 |
| leave-publication-out | with the wider MONDO linking, held-out folds (5-fold CV) | 45.6 % | 57.1 % | 67.9 % | 0.531 |
| leave-publication-out | with the wider MONDO linking, defaults | 46.5 % | 57.1 % | 68.3 % | 0.537 |
| leave-publication-out | with `no_gene_penalty`, held-out folds (5-fold CV) | 46.2 % | 57.2 % | 68.8 % | 0.537 |
| leave-publication-out | with `no_gene_penalty`, defaults | 47.0 % | 57.6 % | 68.8 % | 0.543 |
| leave-publication-out | an empty profile below its lender (item 16), `freq_weight` 0.1 | 45.0 % | 56.6 % | 68.4 % | 0.528 |
| leave-publication-out | with `freq_weight` 0.25, held-out folds (5-fold CV) | 44.3 % | 56.8 % | 68.4 % | 0.525 |
| leave-publication-out | with `freq_weight` 0.25, defaults | 44.8 % | 56.7 % | 68.7 % | 0.529 |
| leave-publication-out | item 4's one mean, held-out folds (5-fold CV, 400 training cases) | 44.6 % | 57.3 % | 69.2 % | 0.530 |
| leave-publication-out | item 4's one mean, ``checked_weight`` 0.3 | 45.4 % | 58.1 % | 69.7 % | 0.537 |
| leave-publication-out | ``checked_weight`` 0.6, held-out folds (5-fold CV, every training case) | 45.3 % | 57.4 % | 69.2 % | 0.533 |
| leave-publication-out | ``checked_weight`` 0.6, defaults | 46.1 % | 58.2 % | 69.7 % | 0.539 |
| leave-publication-out | with name findings (item 17), held-out folds (5-fold CV, every training case) | 45.5 % | 58.1 % | 69.1 % | 0.536 |
| leave-publication-out | with name findings (item 17), defaults | 46.6 % | 58.9 % | 69.7 % | 0.545 |
| leave-publication-out | with the onset (item 20), held-out folds (5-fold CV, 400 training cases) | 46.2 % | 58.3 % | 69.6 % | 0.543 |
| leave-publication-out | with the onset (item 20), ``sibling_prior`` 4, ``onset_weight`` 0.1 | 46.8 % | 59.0 % | 69.9 % | 0.548 |
| leave-publication-out | searched on every training case, held-out folds (5-fold CV) | 46.3 % | 58.7 % | 69.5 % | 0.543 |
| leave-publication-out | its medians, ``sibling_prior`` 2, ``onset_weight`` 0.05 (defaults) | 47.0 % | 59.2 % | 70.0 % | 0.550 |
| everything visible | Resnik BMA baseline | 41.5 % | 55.2 % | 66.4 % | 0.502 |
| everything visible | baseline, ties for it | 65.7 % | 70.4 % | 75.6 % | 0.692 |
| everything visible | ranker before sibling borrowing | 62.7 % | 72.5 % | 80.1 % | 0.690 |
| everything visible | ranker with `sibling_prior` | 63.3 % | 72.5 % | 80.2 % | 0.692 |
| everything visible | ranker with the exact-term bonus | 66.7 % | 74.3 % | 81.9 % | 0.718 |
| everything visible | ranker and `female_x_recessive` | 66.7 % | 74.4 % | 81.9 % | 0.718 |
| everything visible | with the wider MONDO linking | 66.2 % | 74.4 % | 82.0 % | 0.716 |
| everything visible | with `no_gene_penalty` | 66.7 % | 74.8 % | 82.4 % | 0.721 |
| everything visible | with `freq_weight` 0.25 | 66.3 % | 74.9 % | 82.2 % | 0.719 |
| everything visible | item 4's one mean, ``checked_weight`` 0.3 | 66.8 % | 76.0 % | 83.1 % | 0.726 |
| everything visible | ``checked_weight`` 0.6 | 67.0 % | 76.1 % | 83.0 % | 0.726 |
| everything visible | with name findings (item 17) | 67.4 % | 76.6 % | 83.1 % | 0.730 |
| everything visible | with the onset (item 20) | 67.9 % | 76.6 % | 83.2 % | 0.733 |
| everything visible | ``sibling_prior`` 2, ``onset_weight`` 0.05 (defaults) | 68.4 % | 76.8 % | 83.2 % | 0.737 |

Reproduce: ``python bench/rank_accuracy.py`` (both protocols, baseline alongside),
``python bench/rank_accuracy.py --folds 5 --train-cases 0`` (cross-validated search) and ``python
bench/rank_accuracy.py --gene-weights 0 0.5 2 10`` (the named-gene scenario).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from meddiag.diagnosis.index import X_RECESSIVE, PhenotypeIndex, ProfileMatrices
from meddiag.diagnosis.onset import ONSET_CLASSES
from meddiag.errors import InputError
from meddiag.schema import DifferentialEntry, Onset

_MAX_FREQ = 0.95  # an "obligate" feature may still be missed or unreported


@dataclass(frozen=True)
class RankParams:
    freq_weight: float = 0.0
    noise: float = 0.0
    symmetric: float = 0.0
    excluded_weight: float = 0.0
    checked_weight: float = 0.0
    # Excluded findings join the observed ones in one mean, each counting `checked_weight` of
    # an observed finding, instead of adding `checked_weight` x their own mean: each then
    # weighs the same fraction of a finding however many were observed (item 4).
    checked_in_mean: bool = False
    symmetric_checked: bool = False
    negated_weight: float = 0.0
    size_prior: float = 0.0
    publication_prior: float = 0.0
    collapse_redundant: bool = False
    sibling_prior: float = 0.0  # pseudo-count of borrowed facts: 0 = no borrowing from MONDO siblings
    exact_weight: float = 0.0  # bonus x IC when a profile is annotated with exactly the finding's term
    exact_symmetric: float = 0.0  # the same bonus, disease -> patient: a feature examined as such
    # Added to the score of a disease associated with a gene the question names: larger than
    # any spread of phenotype scores, so a named gene's diseases form the differential's first
    # tier, ordered among themselves by phenotype fit.
    gene_weight: float = 0.0
    # Subtracted for a female patient from a disease whose only visible mode of inheritance is
    # X-linked recessive (heterozygous carriers seldom show it): a penalty, not an exclusion.
    female_x_recessive: float = 0.0
    # Subtracted from a disease with no known causal gene (no visible ASSOCIATED_GENE fact):
    # a prior, not an exclusion (module docstring, item 15).
    no_gene_penalty: float = 0.0
    # Times how far (log months, `onset.onset_gap`) the patient's onset lies from a disease's
    # nearest visible curated onset, subtracted from its score (module docstring, item 20).
    onset_weight: float = 0.0

    def with_(self, **changes: float | bool) -> RankParams:
        return replace(self, **changes)  # type: ignore[arg-type]


BASELINE_PARAMS = RankParams()
DEFAULT_PARAMS = RankParams(
    freq_weight=0.25,
    symmetric=0.3,
    checked_weight=0.6,
    checked_in_mean=True,
    symmetric_checked=True,
    sibling_prior=2.0,
    exact_weight=0.3,
    exact_symmetric=0.4,
    gene_weight=10.0,
    female_x_recessive=0.5,
    no_gene_penalty=1.0,
    onset_weight=0.05,
)


@dataclass(frozen=True)
class FindingMatch:
    """Why a finding supports a disease: the disease feature it matched and how specific the match is."""

    finding: str
    finding_label: str
    disease_term: str
    disease_term_label: str
    shared_term: str
    ic: float
    frequency: float
    sources: tuple[str, ...]
    from_name: bool = False  # the disease's name states it (`name_findings`), no curated frequency

    def seen_rarely(self, threshold: float) -> bool:
        """Curated as (almost) never seen in the disease, so rather a point against it; a
        finding its name states has no frequency and is never that."""
        return not self.from_name and self.frequency < threshold


@dataclass(frozen=True)
class FindingConflict:
    """An excluded finding the disease has, or an observed finding the disease is curated not to have."""

    finding: str
    finding_label: str
    disease_term: str
    frequency: float
    kind: str  # "excluded_but_expected" | "observed_but_negated" | "sex" | "no_gene" | "onset"
    sources: tuple[str, ...]
    from_name: bool = False  # expected because the disease's name states it (no curated frequency)

    @property
    def is_finding(self) -> bool:
        """A finding in conflict, not a reason of another kind (the patient's sex, no known gene)."""
        return self.kind in ("excluded_but_expected", "observed_but_negated")


@dataclass(frozen=True)
class RankedDisease:
    id: str
    name: str
    score: float
    rank: int
    members: tuple[str, ...] = ()  # equivalent ids whose evidence was pooled
    for_: tuple[FindingMatch, ...] = ()
    against: tuple[FindingConflict, ...] = ()
    absent: tuple[str, ...] = field(default=())  # frequent disease features the patient lacks
    # With no visible phenotype fact of its own, the MONDO sibling whose fit it was scored by.
    series: str = ""
    genes: tuple[str, ...] = ()  # genes named in the question that the disease is associated with
    # What the score owes to something other than the phenotype: a named gene's tier, the
    # sex and no-known-gene penalties. ``score - prior`` is the phenotype fit alone.
    prior: float = 0.0

    def as_entry(self) -> DifferentialEntry:
        """The wire form the synthesis shows (channel: relational)."""
        for_ = [
            f"{m.finding_label} ~ {m.disease_term_label}"
            + (" (in its name)" if m.from_name else f" ({m.frequency:.0%})" if m.frequency else "")
            for m in self.for_
        ]
        against = [
            (
                f"no {c.finding_label}, "
                + ("which its name states" if c.from_name else f"expected in {c.frequency:.0%}")
            )
            if c.kind == "excluded_but_expected"
            else c.finding_label
            if c.kind in ("sex", "no_gene", "onset")
            else f"{c.finding_label}, curated as absent"
            for c in self.against
        ]
        return DifferentialEntry(
            id=self.id,
            name=self.name,
            score=self.score,
            for_=for_,
            against=against,
            channels=["relational"],
            series=self.series,
        )

    @property
    def sources(self) -> tuple[str, ...]:
        out: dict[str, None] = {}
        for m in self.for_:
            out.update(dict.fromkeys(m.sources))
        for c in self.against:
            out.update(dict.fromkeys(c.sources))
        return tuple(out)


@dataclass
class _Query:
    observed: np.ndarray
    excluded: np.ndarray


def _resolve(index: PhenotypeIndex, ids: Sequence[str]) -> list[int]:
    out: list[int] = []
    for term_id in ids:
        idx = index.term(term_id)
        if idx is not None and idx not in out:
            out.append(idx)
    return out


def _query(
    index: PhenotypeIndex, observed: Sequence[str], excluded: Sequence[str], params: RankParams
) -> _Query:
    obs = _resolve(index, observed)
    if not obs:
        raise InputError("None of the findings could be matched to an HPO term, so no disease can be ranked.")
    if params.collapse_redundant and len(obs) > 1:
        covered: set[int] = set()
        for t in obs:
            covered.update(int(a) for a in index.ancestors_of(t) if a != t)
        obs = [t for t in obs if t not in covered]
    exc = [t for t in _resolve(index, excluded) if t not in obs]
    return _Query(np.asarray(obs, dtype=np.int32), np.asarray(exc, dtype=np.int32))


def _match_matrix(
    index: PhenotypeIndex, mats: ProfileMatrices, terms: np.ndarray, params: RankParams
) -> np.ndarray:
    """findings × profiles: best IC-weighted match of each finding in each profile."""
    out = np.empty((len(terms), mats.closure.shape[0]), dtype=np.float64)
    shared = mats is index.matrices
    for i, t in enumerate(terms.tolist()):
        if shared:  # whole-KB vectors depend only on the term: cache them across queries
            key = (t, params.freq_weight, params.exact_weight)
            row = index.match_cache.get(key)
            if row is None:
                row = _match_row(index, mats, t, params)
                index.match_cache.put(key, row)
            out[i] = row
        else:
            out[i] = _match_row(index, mats, t, params)
    if params.noise:
        # a finding the disease does not explain is not impossible: floor its log-likelihood ratio
        out = np.logaddexp(out, params.noise)
    return out


def _match_row(index: PhenotypeIndex, mats: ProfileMatrices, term: int, params: RankParams) -> np.ndarray:
    freq_weight = params.freq_weight
    closure = mats.closure
    row = np.zeros(closure.shape[0], dtype=np.float32)
    for x in index.ancestors_of(term).tolist():
        lo, hi = closure.indptr[x], closure.indptr[x + 1]
        if lo == hi:
            continue
        rows = closure.indices[lo:hi]
        if freq_weight:
            _max_into(row, rows, index.ic[x] + freq_weight * np.log(closure.data[lo:hi]))
        else:
            _max_into(row, rows, index.ic[x])
    if params.exact_weight:
        # the disease was curated with the very term the case names, not just a relative of it
        by_term = mats.direct_by_term
        lo, hi = by_term.indptr[term], by_term.indptr[term + 1]
        row[by_term.indices[lo:hi]] += params.exact_weight * index.ic[term]
    return row


def _max_into(row: np.ndarray, rows: np.ndarray, vals: np.ndarray | float) -> None:
    row[rows] = np.maximum(row[rows], vals)


def _scores(index: PhenotypeIndex, mats: ProfileMatrices, q: _Query, params: RankParams) -> np.ndarray:
    n_obs, n_exc = max(len(q.observed), 1), len(q.excluded)
    score = _match_matrix(index, mats, q.observed, params).mean(axis=0)
    if params.checked_weight and n_exc:
        # published cases name the absence of features expected for the diagnosis considered
        checked = _match_matrix(index, mats, q.excluded, params).mean(axis=0)
        w = params.checked_weight
        if params.checked_in_mean:
            score = (n_obs * score + w * n_exc * checked) / (n_obs + w * n_exc)
        else:
            score += w * checked
    if params.symmetric:
        examined = np.concatenate([q.observed, q.excluded]) if params.symmetric_checked else q.observed
        score = (1 - params.symmetric) * score + params.symmetric * _disease_to_patient(
            index, mats, examined, params.exact_symmetric
        )
    if params.excluded_weight and len(q.excluded):
        closure = mats.closure
        penalty = np.zeros(closure.shape[0])
        for e in q.excluded.tolist():
            lo, hi = closure.indptr[e], closure.indptr[e + 1]
            # log-likelihood ratio of *not* seeing a feature the disease shows with frequency f
            penalty[closure.indices[lo:hi]] -= np.log1p(-_MAX_FREQ * closure.data[lo:hi])
        score -= params.excluded_weight * penalty / n_obs
    if params.negated_weight and mats.negated.nnz:
        neg = mats.negated
        penalty = np.zeros(neg.shape[0])
        for t in q.observed.tolist():
            lo, hi = neg.indptr[t], neg.indptr[t + 1]
            penalty[neg.indices[lo:hi]] += index.ic[t]
        score -= params.negated_weight * penalty / n_obs
    if params.publication_prior:
        score += params.publication_prior * np.log1p(mats.publications)
    if params.size_prior:
        score += params.size_prior * np.log1p(mats.n_features)
    return score


def _disease_to_patient(
    index: PhenotypeIndex, mats: ProfileMatrices, terms: np.ndarray, exact: float = 0.0
) -> np.ndarray:
    """Frequency-weighted mean over each disease's features of their best match among the findings."""
    best = np.zeros(len(index.terms))
    shared = np.unique(np.concatenate([index.ancestors_of(t) for t in terms.tolist()]))
    for x in shared[np.argsort(index.ic[shared])].tolist():  # ascending: later (rarer) wins
        best[index.descendants_of(x)] = index.ic[x]
    if exact:
        best[terms] += exact * index.ic[terms]
    weight = mats.direct_weight
    total = mats.direct @ best
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(weight > 0, total / np.maximum(weight, 1e-9), 0.0)
    return out


def score_all(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str] = (),
    *,
    exclude_sources: Collection[str] = frozenset(),
    params: RankParams = DEFAULT_PARAMS,
    onset: Onset | None = None,
) -> np.ndarray:
    """One score per profile (`index.profiles` order), with facts resting only on `exclude_sources` hidden.

    `onset`, when the illness began, lowers diseases whose curated onsets lie far from it.
    Remembered per query on the index (a fresh copy is returned), since one ask ranks the
    same findings several times."""
    sources = frozenset(exclude_sources)
    key = (tuple(observed), tuple(excluded), sources, params, onset)
    scores = index.score_cache.get(key)
    if scores is None:
        scores = _score_all(index, observed, excluded, sources, params, onset)
        index.score_cache.put(key, scores)
    return scores.copy()


def _score_all(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str],
    exclude_sources: frozenset[str],
    params: RankParams,
    onset: Onset | None = None,
) -> np.ndarray:
    q = _query(index, observed, excluded, params)
    scores = _scores(index, index.matrices, q, params)
    hidden = index.hidden_relations(exclude_sources) if exclude_sources else np.zeros(0, np.int32)
    affected = index.profiles_using(hidden)
    n_visible = index.matrices.n_features
    if len(affected):
        sub = index.profile_matrices(affected.tolist(), hidden)
        scores[affected] = _scores(index, sub, q, params)
        # nothing curated left to compare (what its name states is no profile): not a candidate
        empty = sub.n_features == 0
        scores[affected[empty]] = -np.inf
        n_visible = n_visible.copy()
        n_visible[affected] = sub.n_features
    penalty = params.no_gene_penalty * index.without_gene(exclude_sources) if params.no_gene_penalty else None
    if onset is not None and params.onset_weight:
        late = params.onset_weight * index.onset_gaps(onset, exclude_sources)
        penalty = late if penalty is None else penalty + late
    if penalty is not None:
        # Priors (no known gene, a distant onset) before borrowing, so that a disease scored
        # through its series never overtakes the sibling it borrows from (`borrow_from_siblings`) ...
        scores = scores - penalty
    if params.sibling_prior:
        empty = ~np.isfinite(scores)
        scores = borrow_from_siblings(index, scores, n_visible, params.sibling_prior)
        if penalty is not None:
            # ... and one that shows nothing still bears its own penalty below the lender's.
            scores[empty] -= penalty[empty]
    return scores


# How far below its lender a profile with nothing visible is put: far smaller than any score
# difference that matters, yet large enough to survive the fusion's z-scores (one unit in the
# last place would not, and the differential breaks exact ties by id).
JUST_BELOW = 1e-6


def borrow_from_siblings(
    index: PhenotypeIndex, scores: np.ndarray, n_visible: np.ndarray, prior: float
) -> np.ndarray:
    """Shrink each profile's score toward its best MONDO sibling's, the more the fewer facts it shows.

    Empirical-Bayes style smoothing: a disease of a phenotypic series with few curated
    (or, when sources are left out, few visible) features is judged partly by how well
    the series fits, with weight ``prior / (prior + own visible features)``; a profile
    with nothing visible ranks just below its best-fitting sibling, at that sibling's
    final score. The series is represented by its best-fitting member: series
    members differ in a few features, so the closest one stands for what the sparse one
    would show. Sibling scores already obey the query's left-out sources, so no hidden
    fact comes back through a sibling.
    """
    sib = index.siblings
    with_sibs = np.flatnonzero(np.diff(sib.indptr) > 0)
    if len(with_sibs) == 0:
        return scores
    best = np.full(len(scores), -np.inf)
    best[with_sibs] = np.maximum.reduceat(scores[sib.indices], sib.indptr[with_sibs])
    has = np.isfinite(best)
    own = np.isfinite(scores)
    weight = prior / (prior + np.maximum(n_visible, 1e-9))
    out = scores.copy()
    mix = has & own
    out[mix] = (1 - weight[mix]) * scores[mix] + weight[mix] * best[mix]
    # Nothing of its own: scored by the best-fitting sibling, at that sibling's *final* score
    # (it is shrunk toward its own series too) and just below it — a disease that shows
    # nothing must not rank above the disease whose evidence it borrows.
    for p in np.flatnonzero(has & ~own).tolist():
        row = sib.indices[sib.indptr[p] : sib.indptr[p + 1]]
        lender = row[np.argmax(scores[row])]
        out[p] = out[lender] - JUST_BELOW
    return out


def rank_diseases(
    index: PhenotypeIndex,
    observed: Sequence[str],
    excluded: Sequence[str] = (),
    *,
    age_years: float | None = None,
    sex: str | None = None,
    onset: Onset | None = None,
    exclude_sources: frozenset[str] = frozenset(),
    candidates: Collection[str] | None = None,
    genes: Mapping[str, Sequence[str]] | None = None,
    top_k: int = 20,
    params: RankParams = DEFAULT_PARAMS,
) -> list[RankedDisease]:
    """The `top_k` best-matching diseases with the evidence for and against each.

    `genes` maps disease ids to the genes named in the question that they are associated
    with (a clinician reporting a variant): those diseases gain `params.gene_weight`.

    `sex` lowers X-linked recessive diseases for a female patient (`adjust_for_sex`) and
    `onset` diseases whose curated onsets lie far from the patient's (item 20), each named in
    the disease's `against`; `age_years` is accepted for the interface but does not change
    scores: the age at the visit bounds the onset only loosely (item 8). Scores are
    comparable within one query only and may be negative; a disease is evidence only
    through `for_`.
    """
    del age_years
    scores = score_all(index, observed, excluded, exclude_sources=exclude_sources, params=params, onset=onset)
    against_sex = adjust_for_sex(index, scores, sex, exclude_sources, params)
    named = _gene_profiles(index, genes or {}) if params.gene_weight else {}
    if named:
        rows = np.fromiter(named, dtype=np.int64, count=len(named))
        finite = scores[np.isfinite(scores)]
        # A disease of the named gene stays in the gene's tier even with no visible fact left.
        floor = float(finite.min()) if len(finite) else 0.0
        scores[rows] = np.where(np.isfinite(scores[rows]), scores[rows], floor) + params.gene_weight
    if candidates is not None:
        allowed = np.zeros(len(scores), dtype=bool)
        for c in candidates:
            p = index.profile_of.get(c)
            if p is not None:
                allowed[p] = True
        scores = np.where(allowed, scores, -np.inf)
    order = top_indices(scores, top_k)
    without_gene = index.without_gene(exclude_sources) if params.no_gene_penalty else None
    onset_gaps = index.onset_gaps(onset, exclude_sources) if onset and params.onset_weight else None
    hidden = set(index.hidden_relations(exclude_sources).tolist()) if exclude_sources else set()
    q = _query(index, observed, excluded, params)
    exclude_sources = frozenset(exclude_sources)  # a cache key below: any collection works
    ranked: list[RankedDisease] = []
    for r, p in enumerate(order.tolist()):
        disease = explain(index, p, float(scores[p]), r + 1, q, hidden, exclude_sources)
        # A disease whose own facts are all hidden (or never curated) is scored as its best
        # sibling (`borrow_from_siblings`): name that sibling, since no finding explains it.
        if params.sibling_prior and not index.feature_cover(p, exclude_sources, hidden).curated:
            disease = replace(disease, series=_best_sibling(index, p, scores))
        if p in named:
            disease = replace(disease, genes=named[p], prior=disease.prior + params.gene_weight)
        if p in against_sex:
            disease = replace(
                disease,
                against=(*disease.against, _sex_conflict(against_sex[p])),
                prior=disease.prior - params.female_x_recessive,
            )
        if onset_gaps is not None and onset_gaps[p] > 0:
            disease = replace(
                disease,
                against=(*disease.against, _onset_conflict(index, p, onset, exclude_sources)),
                prior=disease.prior - params.onset_weight * float(onset_gaps[p]),
            )
        if without_gene is not None and without_gene[p]:
            disease = replace(
                disease,
                against=(*disease.against, NO_GENE_CONFLICT),
                prior=disease.prior - params.no_gene_penalty,
            )
        ranked.append(disease)
    return ranked


def adjust_for_sex(
    index: PhenotypeIndex,
    scores: np.ndarray,
    sex: str | None,
    exclude_sources: Collection[str],
    params: RankParams,
) -> dict[int, tuple[str, ...]]:
    """Lower, in place, the diseases the patient's sex speaks against; return them with the
    sources of the fact that does.

    Only one rule: a female patient and a disease whose every visible mode of inheritance is
    X-linked recessive (module docstring, item 12).
    """
    if sex != "female" or not params.female_x_recessive:
        return {}
    found = index.x_recessive_only(exclude_sources)
    if found:
        scores[np.fromiter(found, dtype=np.int64, count=len(found))] -= params.female_x_recessive
    return found


NO_GENE_CONFLICT = FindingConflict(
    finding="",
    finding_label="no gene known to cause it",
    disease_term="",
    frequency=0.0,
    kind="no_gene",
    sources=(),
)


def _sex_conflict(sources: tuple[str, ...]) -> FindingConflict:
    return FindingConflict(
        finding=X_RECESSIVE,
        finding_label="X-linked recessive inheritance in a female patient (carriers seldom show it)",
        disease_term=X_RECESSIVE,
        frequency=0.0,
        kind="sex",
        sources=sources,
    )


def _onset_conflict(
    index: PhenotypeIndex, profile: int, onset: Onset | None, exclude_sources: Collection[str]
) -> FindingConflict:
    """ "onset: infantile onset in the patient; curated: adult onset" with the curated facts' sources."""
    facts = index.onset_facts(profile, exclude_sources)
    curated = ", ".join(dict.fromkeys(ONSET_CLASSES[t][0] for t, _ in facts))
    patient = onset.label if onset is not None else "unknown"
    return FindingConflict(
        finding="",
        finding_label=f"onset: {patient} in the patient; curated: {curated}",
        disease_term=facts[0][0] if facts else "",
        frequency=0.0,
        kind="onset",
        sources=tuple(dict.fromkeys(s for _, srcs in facts for s in srcs)),
    )


def _gene_profiles(index: PhenotypeIndex, genes: Mapping[str, Sequence[str]]) -> dict[int, tuple[str, ...]]:
    """Ranking profile -> the named genes its diseases are associated with."""
    out: dict[int, tuple[str, ...]] = {}
    for disease_id, symbols in genes.items():
        p = index.profile_of.get(disease_id)
        if p is not None:
            out[p] = tuple(dict.fromkeys([*out.get(p, ()), *symbols]))
    return out


def _best_sibling(index: PhenotypeIndex, profile: int, scores: np.ndarray) -> str:
    """The sibling a profile with nothing visible was scored by: the one ranked just above it."""
    sib = index.siblings
    row = sib.indices[sib.indptr[profile] : sib.indptr[profile + 1]]
    above = row[scores[row] >= scores[profile]] if np.isfinite(scores[profile]) else row[:0]
    if len(above) == 0:
        return ""
    return index.profiles[int(above[np.argmin(scores[above])])]


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest finite scores, best first (ties broken by index for stability)."""
    finite = np.flatnonzero(np.isfinite(scores))
    if len(finite) == 0:
        return finite
    k = min(k, len(finite))
    part = finite[np.argpartition(-scores[finite], k - 1)[:k]] if k < len(finite) else finite
    return part[np.lexsort((part, -scores[part]))]


def explain(
    index: PhenotypeIndex,
    profile: int,
    score: float,
    rank: int,
    q: _Query,
    hidden: set[int],
    exclude_sources: Collection[str] = frozenset(),
    freq_weight: float = 0.0,
) -> RankedDisease:
    """The visible facts behind one profile's score, citing only sources that were not left out."""

    def cite(r: int) -> tuple[str, ...]:
        return tuple(s for s in index.relation_sources(r) if s not in exclude_sources)

    plain = index.plain
    rel_term, rel_freq, ic = plain.rel_term, plain.rel_freq, plain.ic
    cover = index.feature_cover(profile, frozenset(exclude_sources), hidden)
    positive, negative, under = cover.positive, cover.negative, cover.under
    label = index.ontology.label
    observed = [(t, index.ancestor_list(t)) for t in q.observed.tolist()]
    matches: list[FindingMatch] = []
    for t, anc in observed:
        shared_terms = [x for x in anc if x in under and ic[x] > 0]
        if not shared_terms:
            continue
        # the same choice the score made: IC of the shared term plus the weighted log frequency
        shared = max(shared_terms, key=lambda x: ic[x] + freq_weight * float(np.log(rel_freq[under[x]])))
        r = under[shared]
        matches.append(
            FindingMatch(
                finding=index.terms[t],
                finding_label=label(index.terms[t]),
                disease_term=index.terms[rel_term[r]],
                disease_term_label=label(index.terms[rel_term[r]]),
                shared_term=index.terms[shared],
                ic=round(ic[shared], 3),
                frequency=0.0 if index.rel_from_name[r] else round(rel_freq[r], 3),
                sources=cite(r),
                from_name=bool(index.rel_from_name[r]),
            )
        )
    conflicts: list[FindingConflict] = []
    for e in q.excluded.tolist():
        expected = under.get(e)
        if expected is not None:
            conflicts.append(
                FindingConflict(
                    finding=index.terms[e],
                    finding_label=label(index.terms[e]),
                    disease_term=index.terms[rel_term[expected]],
                    frequency=round(rel_freq[expected], 3),
                    kind="excluded_but_expected",
                    sources=cite(expected),
                    from_name=bool(index.rel_from_name[expected]),
                )
            )
    for t, anc_list in observed:
        ancestors = set(anc_list)
        for r in negative:
            if rel_term[r] in ancestors:
                conflicts.append(
                    FindingConflict(
                        finding=index.terms[t],
                        finding_label=label(index.terms[t]),
                        disease_term=index.terms[rel_term[r]],
                        frequency=0.0,
                        kind="observed_but_negated",
                        sources=cite(r),
                    )
                )
                break
    patient_anc: set[int] = set()
    for _, anc_list in observed:
        patient_anc.update(anc_list)
    absent = [
        index.terms[rel_term[r]]
        for r in sorted(positive, key=lambda r: -rel_freq[r])
        if rel_freq[r] >= 0.8 and rel_term[r] not in patient_anc
    ]
    disease_id = index.profiles[profile]
    return RankedDisease(
        id=disease_id,
        name=index.name(disease_id),
        score=score,  # unrounded: the order of near-equal scores must survive (JUST_BELOW)
        rank=rank,
        members=tuple(index.members[profile]),
        for_=tuple(matches),
        against=tuple(conflicts),
        absent=tuple(dict.fromkeys(absent))[:10],
    )
