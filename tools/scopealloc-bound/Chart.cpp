//===- Chart.cpp - The critical stack chains as an SVG flame chart --------===//
#include "Output.h"
#include "SymbolNames.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace scopealloc {
namespace bound {

namespace {
constexpr int Width = 960, Margin = 10, BarHeight = 18, Gap = 2,
              TitleHeight = 26;

std::string escape(StringRef S) {
  std::string Out;
  for (char C : S)
    switch (C) {
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '&':
      Out += "&amp;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  return Out;
}

/// A warm colour per function name, the same in every chart.
std::string colour(StringRef Name, bool Unknown) {
  if (Unknown)
    return "rgb(200,200,200)";
  unsigned H = 0;
  for (char C : Name)
    H = H * 31 + uint8_t(C);
  return "rgb(" + std::to_string(205 + H % 50) + "," +
         std::to_string(80 + (H / 50) % 120) + "," +
         std::to_string(20 + (H / 6000) % 40) + ")";
}
} // namespace

void printSVG(raw_ostream &OS, const Image &Img, const CallGraph &G,
              const Bounds &B) {
  int Height = Margin;
  for (const EntryBound &E : B.Entries)
    Height += TitleHeight + (BarHeight + Gap) * E.Stack.Chain.size() + Margin;
  Height += Margin;
  OS << "<?xml version=\"1.0\" standalone=\"no\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << Width
     << "\" height=\"" << Height << "\" font-family=\"monospace\" "
     << "font-size=\"12\">\n"
     << "<title>scopealloc-bound: " << escape(Img.Path)
     << ": critical stack chains</title>\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  int Y = Margin;
  for (const EntryBound &E : B.Entries) {
    const ResourceBound &R = E.Stack;
    std::string Name = readableSymbol(G.Nodes[E.Entry.Node].Name);
    Y += TitleHeight;
    OS << "<text x=\"" << Margin << "\" y=\"" << Y - 8
       << "\" font-weight=\"bold\">" << escape(Name) << " ("
       << escape(E.Entry.Kind) << "): stack "
       << (R.Bounded
               ? std::to_string(R.Bytes) + " bytes"
               : "unbounded, known part " + std::to_string(R.Bytes) + " bytes")
       << (R.Nested.empty()
               ? std::string()
               : " (the chain below " + std::to_string(R.OwnBytes) +
                     ", the interrupt handlers that may preempt it " +
                     std::to_string(R.Bytes - R.OwnBytes) + ")")
       << "</text>\n";
    // Bytes from each step to the end of the chain: the entry's bar is the
    // whole stack, each callee's sits on top of its caller's.
    size_t N = R.Chain.size();
    std::vector<uint64_t> Below(N + 1, 0);
    for (size_t I = N; I-- > 0;)
      Below[I] = Below[I + 1] + R.Chain[I].Bytes;
    uint64_t Total = std::max<uint64_t>(Below[0], 1);
    int Span = Width - 2 * Margin;
    for (size_t I = 0; I < N; ++I) {
      const ChainStep &St = R.Chain[I];
      std::string Label = St.Node == ChainStep::ExceptionFrame
                              ? "(exception frame)"
                              : readableSymbol(G.Nodes[St.Node].Name);
      int W = std::max<int>(1, int(double(Below[I]) / Total * Span));
      int BarY = Y + int(N - 1 - I) * (BarHeight + Gap);
      std::string Text = Label + "  " + std::to_string(St.Bytes) + " B";
      if (St.Repeat > 1)
        Text += " (x" + std::to_string(St.Repeat) + ")";
      Text += ", " + std::to_string(Below[I]) + " B from here";
      OS << "<g><title>" << escape(Text) << (St.Unknown ? ", unbounded" : "")
         << (St.Assumed ? ", assumed" : "") << "</title>"
         << "<rect x=\"" << Margin << "\" y=\"" << BarY << "\" width=\"" << W
         << "\" height=\"" << BarHeight << "\" fill=\""
         << colour(Label, St.Unknown) << "\" stroke=\"white\"/>"
         << "<text x=\"" << Margin + 4 << "\" y=\"" << BarY + 13 << "\">"
         << escape(Text) << "</text></g>\n";
    }
    Y += int(N) * (BarHeight + Gap) + Margin;
  }
  OS << "</svg>\n";
}

} // namespace bound
} // namespace scopealloc
