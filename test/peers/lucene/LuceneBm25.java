// Lucene 8 peer for cspipe's BM25 parity tests. No build step: run with Java's single-file launcher,
//   java -cp "$(ls /usr/share/java/lucene-core-8*.jar /usr/share/java/lucene-analyzers-common-8*.jar | tr '\n' :)" \
//        test/peers/lucene/LuceneBm25.java <mode> ...
//
// Modes (all text inputs are one record per line, text base64-encoded UTF-8 so any character survives):
//   analyze  <stage> <texts.b64>             one JSON array of terms per input line.
//            stage = tokens   (StandardTokenizer only)
//                  | anserini (Anserini's DefaultEnglishAnalyzer chain)
//                  | porter   (whitespace split + PorterStemFilter, for stemmer checks)
//   search   <docs.tsv> <queries.tsv> <k1> <b> <k>
//            docs.tsv: id \t base64(text); queries.tsv: qid \t base64(text).
//            Indexes the docs in file order (internal doc number = line order) with Anserini's
//            DefaultEnglishAnalyzer and BM25Similarity(k1, b), builds Anserini's bag-of-words query
//            (one SHOULD TermQuery per distinct term, boosted by its count) and sorts like Anserini
//            (score descending, then the id field ascending). Prints one JSON line per query:
//            {"qid":..., "hits":[[id, score], ...]} and first a line {"stats":{...}}.
//   stopwords                                 prints EnglishAnalyzer.ENGLISH_STOP_WORDS_SET as JSON.
//   sweep    <templates.b64> <first> <last>  StandardTokenizer on every code point from first to last (decimal;
//            surrogates as lone code units): each template has U+0000 where the code point goes; the filled
//            templates are joined by a space into one text per code point. Prints runs of code points whose
//            token signatures are equal, one line "first last signature" per run; a signature is the tokens'
//            "start-end:type" (code point offsets, type = index in StandardTokenizer.TOKEN_TYPES) joined by ",".
//   cmap                                      runs "first last class" of the generated scanner's character classes.
//   parity   <dir>                            the parity test's single run: sweep of probes.b64 over every code point
//            -> runs.txt; Anserini-chain FNV-1a hashes of chain.b64 per code point -> terms.bin (int32 LE);
//            signatures of texts.b64 -> texts.txt; Anserini terms of sentences.b64 (JSON arrays) -> sentences.txt.
//   version                                   prints Lucene's version (org.apache.lucene.util.Version.LATEST).
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.en.*;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.TypeAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;

public class LuceneBm25 {
  static final class AnseriniEnglish extends StopwordAnalyzerBase {
    AnseriniEnglish() { super(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET); }
    @Override protected TokenStreamComponents createComponents(String field) {
      Tokenizer source = new StandardTokenizer();
      TokenStream r = new EnglishPossessiveFilter(source);
      r = new LowerCaseFilter(r);
      r = new StopFilter(r, this.stopwords);
      r = new PorterStemFilter(r);
      return new TokenStreamComponents(source, r);
    }
  }
  static final class TokensOnly extends Analyzer {
    @Override protected TokenStreamComponents createComponents(String field) {
      Tokenizer source = new StandardTokenizer();
      return new TokenStreamComponents(source, source);
    }
  }
  static final class PorterOnly extends Analyzer {
    @Override protected TokenStreamComponents createComponents(String field) {
      Tokenizer source = new WhitespaceTokenizer();
      return new TokenStreamComponents(source, new PorterStemFilter(source));
    }
  }

  static List<String> analyze(Analyzer a, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = a.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) out.add(term.toString());
      ts.end();
    }
    return out;
  }

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static String decode(String b64) { return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8); }

  static List<String> readB64Lines(String file) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) if (!line.isEmpty()) out.add(decode(line));
    return out;
  }

  static final Map<String, Integer> TYPE_INDEX = new HashMap<>();
  static { for (int i = 0; i < StandardTokenizer.TOKEN_TYPES.length; i++) TYPE_INDEX.put(StandardTokenizer.TOKEN_TYPES[i], i); }

  /**
   * Token signature of `text`: "start-end:type" per token joined by "," (offsets in code points; type =
   * index in StandardTokenizer.TOKEN_TYPES). With segment starts given (UTF-16 offsets), one signature per
   * segment, offsets relative to its start, is appended to sigs instead and null is returned.
   */
  static String signature(StandardTokenizer tok, String text, int[] segStart, StringBuilder[] sigs) throws IOException {
    OffsetAttribute off = tok.addAttribute(OffsetAttribute.class);
    TypeAttribute type = tok.addAttribute(TypeAttribute.class);
    StringBuilder one = new StringBuilder();
    tok.setReader(new StringReader(text));
    tok.reset();
    int seg = 0, unit = 0, cps = 0; // code points before UTF-16 offset `unit`
    int[] segCp = new int[segStart == null ? 1 : segStart.length];
    while (tok.incrementToken()) {
      int so = off.startOffset(), eo = off.endOffset();
      StringBuilder b = one;
      if (segStart != null) {
        while (seg + 1 < segStart.length && segStart[seg + 1] <= so) {
          seg++;
          cps += text.codePointCount(unit, segStart[seg]);
          unit = segStart[seg];
          segCp[seg] = cps;
        }
        b = sigs[seg];
      }
      cps += text.codePointCount(unit, so);
      unit = so;
      int start = cps - segCp[seg], end = start + text.codePointCount(so, eo);
      if (b.length() > 0) b.append(',');
      b.append(start).append('-').append(end).append(':').append(TYPE_INDEX.get(type.type()));
    }
    tok.end();
    tok.close();
    return segStart == null ? one.toString() : null;
  }

  /** Splits each template at U+0000 once, so filling it is a few appends. */
  static String[][] pieces(List<String> templates) {
    String[][] p = new String[templates.size()][];
    for (int t = 0; t < p.length; t++) p[t] = templates.get(t).split("\u0000", -1);
    return p;
  }

  static void fill(StringBuilder text, String[][] pieces, String x) {
    for (int t = 0; t < pieces.length; t++) {
      if (t > 0) text.append(' ');
      String[] ps = pieces[t];
      text.append(ps[0]);
      for (int i = 1; i < ps.length; i++) text.append(x).append(ps[i]);
    }
  }

  /** The code unit (surrogates, alone) or code point cp as a string. */
  static String unit(int cp) { return new String(Character.toChars(cp)); }

  /**
   * StandardTokenizer on every code point from first to last (surrogates as lone code units), each
   * substituted into every template, the filled templates joined by a space into one segment per code
   * point. Segments are tokenized in chunks of 2048 (separated by a space, so no token spans two) and
   * runs of code points with equal signatures are printed as "first last signature".
   */
  static void sweep(List<String> templates, int first, int last, PrintStream out) throws IOException {
    String[][] ps = pieces(templates);
    StandardTokenizer tok = new StandardTokenizer();
    final int chunk = 2048;
    String prev = null;
    int runStart = first, prevCp = first;
    StringBuilder text = new StringBuilder();
    for (int lo = first; lo <= last; lo += chunk) {
      int hi = Math.min(last, lo + chunk - 1);
      int[] segStart = new int[hi - lo + 1];
      text.setLength(0);
      for (int cp = lo; cp <= hi; cp++) {
        if (cp > lo) text.append(' ');
        segStart[cp - lo] = text.length();
        fill(text, ps, unit(cp));
      }
      StringBuilder[] sigs = new StringBuilder[segStart.length];
      for (int i = 0; i < sigs.length; i++) sigs[i] = new StringBuilder();
      signature(tok, text.toString(), segStart, sigs);
      for (int cp = lo; cp <= hi; cp++) {
        String cur = sigs[cp - lo].toString();
        if (prev == null) { prev = cur; runStart = cp; }
        else if (!cur.equals(prev)) { out.println(runStart + " " + prevCp + " " + prev); prev = cur; runStart = cp; }
        prevCp = cp;
      }
    }
    if (prev != null) out.println(runStart + " " + prevCp + " " + prev);
  }

  /**
   * Anserini's analyzer on every code point (templates filled and joined as in sweep, one text per code
   * point); writes one little-endian int per code point: the FNV-1a hash (32 bits) of its terms' UTF-16
   * units, each term followed by the separator 0x10000.
   */
  static void chainHashes(List<String> templates, Path file) throws IOException {
    String[][] ps = pieces(templates);
    Analyzer a = new AnseriniEnglish();
    java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(4 * 0x110000).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    StringBuilder text = new StringBuilder();
    for (int cp = 0; cp <= 0x10FFFF; cp++) {
      text.setLength(0);
      fill(text, ps, unit(cp));
      int h = 0x811c9dc5;
      try (TokenStream ts = a.tokenStream("contents", text.toString())) {
        CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
        ts.reset();
        while (ts.incrementToken()) {
          char[] t = term.buffer();
          for (int i = 0, n = term.length(); i < n; i++) h = (h ^ t[i]) * 0x01000193;
          h = (h ^ 0x10000) * 0x01000193;
        }
        ts.end();
      }
      buf.putInt(h);
    }
    Files.write(file, buf.array());
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    switch (args[0]) {
      case "stopwords": {
        List<String> words = new ArrayList<>();
        for (Object o : EnglishAnalyzer.ENGLISH_STOP_WORDS_SET) words.add(new String((char[]) o));
        Collections.sort(words);
        StringJoiner j = new StringJoiner(",", "[", "]");
        for (String w : words) j.add(json(w));
        out.println(j);
        break;
      }
      case "analyze": {
        Analyzer a = switch (args[1]) {
          case "tokens" -> new TokensOnly();
          case "anserini" -> new AnseriniEnglish();
          case "porter" -> new PorterOnly();
          default -> throw new IllegalArgumentException("unknown stage " + args[1]);
        };
        for (String line : Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8)) {
          StringJoiner j = new StringJoiner(",", "[", "]");
          for (String t : analyze(a, decode(line))) j.add(json(t));
          out.println(j);
        }
        break;
      }
      case "search": {
        float k1 = Float.parseFloat(args[3]), b = Float.parseFloat(args[4]);
        int k = Integer.parseInt(args[5]);
        Analyzer analyzer = new AnseriniEnglish();
        BM25Similarity sim = new BM25Similarity(k1, b);
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriterConfig cfg = new IndexWriterConfig(analyzer).setSimilarity(sim);
        try (IndexWriter w = new IndexWriter(dir, cfg)) {
          for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            String id = line.substring(0, tab);
            Document d = new Document();
            d.add(new StringField("id", id, Field.Store.YES));
            d.add(new SortedDocValuesField("id", new BytesRef(id)));
            d.add(new TextField("contents", decode(line.substring(tab + 1)), Field.Store.NO));
            w.addDocument(d);
          }
          w.forceMerge(1);
        }
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
          IndexSearcher searcher = new IndexSearcher(reader);
          searcher.setSimilarity(sim);
          CollectionStatistics cs = searcher.collectionStatistics("contents");
          out.println("{\"stats\":{\"maxDoc\":" + reader.maxDoc() + ",\"docCount\":" + (cs == null ? 0 : cs.docCount())
              + ",\"sumTotalTermFreq\":" + (cs == null ? 0 : cs.sumTotalTermFreq()) + "}}");
          Sort sort = new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING));
          for (String line : Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8)) {
            int tab = line.indexOf('\t');
            String qid = line.substring(0, tab);
            List<String> terms = analyze(analyzer, decode(line.substring(tab + 1)));
            Map<String, Long> counts = new TreeMap<>();
            for (String t : terms) counts.merge(t, 1L, Long::sum);
            BooleanQuery.Builder qb = new BooleanQuery.Builder();
            for (Map.Entry<String, Long> e : counts.entrySet())
              qb.add(new BoostQuery(new TermQuery(new Term("contents", e.getKey())), (float) e.getValue()), BooleanClause.Occur.SHOULD);
            StringJoiner hits = new StringJoiner(",", "[", "]");
            if (!counts.isEmpty()) {
              TopDocs td = searcher.search(qb.build(), k, sort, true);
              for (ScoreDoc sd : td.scoreDocs) {
                String id = reader.document(sd.doc).get("id");
                hits.add("[" + json(id) + "," + Float.toString(sd.score) + "]");
              }
            }
            out.println("{\"qid\":" + json(qid) + ",\"hits\":" + hits + "}");
          }
        }
        break;
      }
      case "version": {
        out.println(org.apache.lucene.util.Version.LATEST.toString());
        break;
      }
      case "sweep": {
        int first = Integer.parseInt(args[2]), last = Integer.parseInt(args[3]);
        sweep(readB64Lines(args[1]), first, last, out);
        break;
      }
      case "cmap": {
        // The generated scanner's character classes (StandardTokenizerImpl.ZZ_CMAP, read by reflection):
        // code points in one class are indistinguishable to Lucene's DFA. Runs "first last class".
        java.lang.reflect.Field f = Class.forName("org.apache.lucene.analysis.standard.StandardTokenizerImpl").getDeclaredField("ZZ_CMAP");
        f.setAccessible(true);
        char[] cmap = (char[]) f.get(null);
        int start = 0;
        for (int cp = 1; cp <= cmap.length; cp++) {
          if (cp == cmap.length || cmap[cp] != cmap[start]) { out.println(start + " " + (cp - 1) + " " + (int) cmap[start]); start = cp; }
        }
        break;
      }
      case "parity": {
        // One run for the parity test: the code-point sweep, the analyzer-chain hashes, the typed token
        // signatures of the sequence texts and Anserini's terms for the sentences (see peer.ts).
        Path dir = Paths.get(args[1]);
        try (PrintStream runs = new PrintStream(new FileOutputStream(dir.resolve("runs.txt").toFile()), false, StandardCharsets.UTF_8)) {
          sweep(readB64Lines(dir.resolve("probes.b64").toString()), 0, 0x10FFFF, runs);
        }
        chainHashes(readB64Lines(dir.resolve("chain.b64").toString()), dir.resolve("terms.bin"));
        try (PrintStream sigs = new PrintStream(new FileOutputStream(dir.resolve("texts.txt").toFile()), false, StandardCharsets.UTF_8)) {
          StandardTokenizer tok = new StandardTokenizer();
          for (String text : readB64Lines(dir.resolve("texts.b64").toString())) sigs.println(signature(tok, text, null, null));
        }
        try (PrintStream terms = new PrintStream(new FileOutputStream(dir.resolve("sentences.txt").toFile()), false, StandardCharsets.UTF_8)) {
          Analyzer a = new AnseriniEnglish();
          for (String text : readB64Lines(dir.resolve("sentences.b64").toString())) {
            StringJoiner j = new StringJoiner(",", "[", "]");
            for (String t : analyze(a, text)) j.add(json(t));
            terms.println(j);
          }
        }
        break;
      }
      default: throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    out.flush();
  }
}
