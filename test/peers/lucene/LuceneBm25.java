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
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.core.WhitespaceTokenizer;
import org.apache.lucene.analysis.en.*;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
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
      default: throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    out.flush();
  }
}
