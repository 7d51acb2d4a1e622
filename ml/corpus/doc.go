// Package corpus reads, validates and describes tag corpora: documents that are sets
// of descriptive terms (music tags, image labels). It owns the vocabulary, the
// train/valid/test/oov splits, the reservation of simulated out-of-vocabulary tags
// (paper §5.2) and the statistics of the paper's Figures 3-4. It uses the standard
// library only.
//
// # Formats
//
// Parse reads six formats, detected from the first 64 KiB (Detect) or named in
// ParseOptions.Format. All are UTF-8 (a leading byte order mark is skipped), "\n"
// or "\r\n" line ends; blank lines are skipped. Any of them may be
// gzip-compressed: input starting with the gzip magic bytes is decompressed on
// the fly, up to ParseOptions.MaxBytes of decompressed input (1 GiB by default).
// A detected format is explained in Corpus.Detected ("tsv: a tab in line 1").
// Detection never guesses past an obvious mistake: a sample that looks like a
// 0/1 label matrix but has a ragged row or a cell that is not 0/1 is an error
// naming the line and cell, not a corpus of "lines" whose tags are "0" and "1".
//
//   - tsv: "id<TAB>tag<TAB>tag…", one document per line (the format of
//     ../shared/data/*/docs.tsv). A line with an id and no tag is an empty document.
//   - lines: "tag,tag,…", one document per line; no quoting, so tags cannot hold a
//     comma. The id of a document is its 1-based line number.
//   - csv: RFC 4180 CSV with a header. The tags column is the first one named tags,
//     tag, labels, label, terms or keywords; the id column the first one named id,
//     doc_id, docid, doc, document, document_id, item, item_id, track_id or name,
//     else the other column of a two-column file, else the line number. Inside the
//     tags field, tags are separated by ParseOptions.TagSep or, when it is empty, by
//     the first of ";", "|", "," that occurs in the field (so "a;b,c" is the two tags
//     "a" and "b,c"; a field holding commas must be quoted, as CSV requires).
//   - jsonl: one JSON object per line, {"id": "x" or 17, "tags": ["a", "b"]};
//     a missing or null id is the line number; other fields are ignored.
//   - matrix: a binary label matrix in CSV: a header of tag names, then one row per
//     document of 0/1 cells ("1", "1.0", "true" present; "0", "0.0", "false", "?"
//     absent). The first column holds document ids when its header is empty or an id
//     name (as for csv), or when its first data cell is not 0/1; otherwise the id is
//     the 1-based row number.
//   - arff: Weka ARFF as used by mulan and MEKA, dense or sparse ("{index value,…}",
//     omitted values being the attribute's zero: 0, or the first nominal value).
//     The tags of a row are the names of its label attributes whose value is 1.
//     Label attributes are ParseOptions.Labels when given (mulan keeps them in a
//     separate XML file), else those of MEKA's "-C n" relation option (n > 0: the
//     first n attributes, n < 0: the last -n), else every nominal attribute whose
//     values are exactly {0,1}; numeric, date and other nominal attributes (audio or
//     image features) are ignored. Mulan datasets with binary features (bibtex,
//     enron, medical) declare features as {0,1} too: read their label names from the
//     mulan XML file with ReadMulanLabels. The id is a non-label string or nominal attribute
//     with an id name, else the 1-based row number of the data section.
//
// Write produces each format so that Parse reads it back (see Write for what each
// format keeps).
//
// # Validation
//
// Tags are trimmed of white space; empty tags are ignored; a tag repeated within a
// document is kept once, at its first position. Documents without tags are dropped
// and reported in Corpus.Dropped and Corpus.Warnings. Errors are *ParseError values
// naming the line (and byte offset where it matters): input that is not UTF-8
// ("line 4: not UTF-8 at byte 3021"), binary input (a NUL byte), a line longer than
// ParseOptions.MaxLineBytes, an empty or repeated document id, a tag longer than
// ParseOptions.MaxTagBytes or holding a control character (TAB, LF, CR, BEL, …:
// C0, DEL, C1), named as U+XXXX, a tag name of a label-matrix header holding
// a bidirectional formatting character, a syntax error of the format, and a
// corpus with fewer than 2 documents.
//
// # Bidirectional formatting characters
//
// A document with a tag (or an id) holding a bidirectional embedding,
// override or isolate character (U+202A–U+202E, U+2066–U+2069) is skipped
// whole, not refused: such a character reorders the text shown after it
// ("evil\u202egnp.exe" shows as "evilexe.png"), so none may be stored or
// shown, but 97 Arabic keyword lists of cldr-emoji's 205,827 documents hold
// a U+202B and should not stop the corpus. The documents are listed in
// Corpus.BidiSkipped (line and id); the statistics count them and name the
// first MaxSkippedLines lines (Stats.BidiSkipped, Stats.BidiLines), and
// ReadSplit ignores the split lines that name them.
//
// # The tag cap
//
// A document with more than ParseOptions.MaxTagsPerDoc distinct tags (10,000 by
// default) is skipped, not refused and not truncated: one genome-wide article
// of pubmed-genes (19,919 genes) should not stop a corpus of 754,859, and its
// first 10,000 tags would be a document the source does not have. Skipped
// documents are listed in Corpus.Skipped (line and id); the statistics count
// them and name the first MaxSkippedLines lines (Stats.Skipped,
// Stats.SkippedLines), and ReadSplit ignores the split lines that name them.
// The cap exists to bound the memory of one document while it is read (its
// tags and their duplicate check): past the cap the rest of its line is read
// without keeping anything.
//
// # Memory
//
// Parse reads its input once, as a stream: the input is never held whole (a
// gzip stream is decompressed as it is read, its decompressed bytes counted
// against ParseOptions.MaxBytes), each distinct tag is stored once, and a
// document's tags are references to them packed into shared chunks. What a
// parse holds is bounded by ParseOptions.MaxMemory (400 MiB by default),
// estimated as it reads from the documents, tag uses and distinct tags kept
// (see MaxMemory), so a small gzip of short tags that unpacks to a gigabyte
// is refused after a few hundred megabytes of heap instead of growing the
// process to several gigabytes; MaxDocs bounds the number of documents.
// These limits are errors wrapping ErrTooLarge, on the line that passes them.
//
// ParseTo does not hold the documents at all: it hands each kept one to a
// DocSink (the web app's store packs it into compressed term numbers as it
// comes), and the budget counts the document ids, the distinct tags and
// what the sink says it holds. An upload of pubmed-genes then peaks at
// about 100 MiB of server RSS instead of 191 MiB, and a gzip of repeated
// lines is refused by MaxBytes, not by the memory budget. The ids of the
// lines format are line numbers, unique by construction: they are not kept
// for the duplicate check.
//
// # Splits and out-of-vocabulary tags
//
// ReadSplit and ReadOOVTags read the split.tsv and oov_tags.txt files of
// ../shared/data. RandomSplit reproduces the paper's §5.2 procedure: documents
// holding a reserved (simulated OOV) tag are set aside as OOV, the others are
// shuffled with a seeded PCG generator and split 2:1 into training and the rest,
// from which DefaultValidSize (a quarter, at most 300) or a given number go to
// validation and the remainder to test. Training vocabularies therefore never hold
// a reserved tag (TrainVocabulary); DropTags removes tags from documents.
//
// # Statistics
//
// ComputeStats gives the paper's Figures 3-4: tags in descending order of use
// (the tag-use distribution) and the histogram of tags per document (the
// document cardinality distribution), with the vocabulary size and mean tags per
// document.
//
// # Demo corpus
//
// Demo generates taglens's own synthetic corpus with planted polysemous tags and
// their true senses (see demo.go); DemoSplit is its fixed split.
package corpus
