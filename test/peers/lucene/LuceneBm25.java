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
//   sweep    <templates.b64> <first> <last>  StandardTokenizer on every code point from first to last (decimal,
//            surrogates skipped): each template has U+0000 where the code point goes; the filled templates are
//            joined by a space into one text per code point. Prints runs of code points whose token spans (in
//            code points, "start-end" joined by ",") are equal: one line "first last spans" per run.
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
        List<String> templates = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) if (!line.isEmpty()) templates.add(decode(line));
        int first = Integer.parseInt(args[2]), last = Integer.parseInt(args[3]);
        StandardTokenizer tok = new StandardTokenizer();
        OffsetAttribute off = tok.addAttribute(OffsetAttribute.class);
        // Code points go into chunks of one text: one segment per code point (its filled templates
        // joined by a space), segments separated by a space, so no token spans two segments.
        final int chunk = 2048;
        String prev = null;
        int runStart = first, prevCp = first;
        List<Integer> cps = new ArrayList<>();
        for (int cp = first; cp <= last + 1; cp++) {
          boolean flush = cp > last || cps.size() == chunk;
          if (flush && !cps.isEmpty()) {
            StringBuilder text = new StringBuilder();
            int[] segStart = new int[cps.size()];
            for (int i = 0; i < cps.size(); i++) {
              if (i > 0) text.append(' ');
              segStart[i] = text.length();
              String x = new String(Character.toChars(cps.get(i)));
              for (int t = 0; t < templates.size(); t++) {
                if (t > 0) text.append(' ');
                text.append(templates.get(t).replace("\u0000", x));
              }
            }
            String s = text.toString();
            StringBuilder[] sigs = new StringBuilder[cps.size()];
            for (int i = 0; i < sigs.length; i++) sigs[i] = new StringBuilder();
            tok.setReader(new StringReader(s));
            tok.reset();
            int seg = 0;
            while (tok.incrementToken()) {
              int so = off.startOffset(), eo = off.endOffset();
              while (seg + 1 < segStart.length && segStart[seg + 1] <= so) seg++;
              StringBuilder b = sigs[seg];
              if (b.length() > 0) b.append(',');
              b.append(s.codePointCount(segStart[seg], so)).append('-').append(s.codePointCount(segStart[seg], eo));
            }
            tok.end();
            tok.close();
            for (int i = 0; i < cps.size(); i++) {
              int c = cps.get(i);
              String cur = sigs[i].toString();
              if (prev == null) { prev = cur; runStart = c; }
              else if (!cur.equals(prev) || c != prevCp + 1) { out.println(runStart + " " + prevCp + " " + prev); prev = cur; runStart = c; }
              prevCp = c;
            }
            cps.clear();
          }
          if (cp > last) break;
          if (cp >= 0xD800 && cp <= 0xDFFF) continue;
          cps.add(cp);
        }
        if (prev != null) out.println(runStart + " " + prevCp + " " + prev);
        break;
      }
      default: throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    out.flush();
  }
}
