//===- PolicyValues.cpp - How policy values are written -------------------===//
#include "PolicyValues.h"
#include "LLVMCompat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace scopealloc {

ByteCountRead readByteCount(StringRef Text, uint64_t &Value) {
  bool Negative = Text.starts_with("-");
  StringRef Digits = Negative ? Text.drop_front() : Text;
  if (Digits.empty() || !all_of(Digits, isDigit))
    return ByteCountRead::NotANumber;
  if (Negative)
    return ByteCountRead::Negative;
  return Text.getAsInteger(10, Value) ? ByteCountRead::TooLarge
                                      : ByteCountRead::OK;
}

Expected<DynamicRule> parseDynamicRule(StringRef Text, char Quote) {
  static constexpr DynamicRule Rules[] = {
      DynamicRule::Keep, DynamicRule::Demote, DynamicRule::Reject};
  SmallVector<StringRef, 3> Names;
  for (DynamicRule R : Rules) {
    if (Text == spell(R))
      return R;
    Names.push_back(spell(R));
  }
  return createStringError(inconvertibleErrorCode(),
                           "must be keep, demote or reject, found " +
                               Twine(Quote) + Text + Twine(Quote) +
                               didYouMean(Text, Names));
}

StringRef spell(DynamicRule R) {
  switch (R) {
  case DynamicRule::Keep:
    return "keep";
  case DynamicRule::Demote:
    return "demote";
  case DynamicRule::Reject:
    return "reject";
  }
  llvm_unreachable("all rules handled");
}

Expected<ConflictRule> parseConflictRule(StringRef Text, char Quote) {
  if (Text == "error")
    return ConflictRule::Error;
  if (Text == "warn")
    return ConflictRule::Warn;
  return createStringError("must be error or warn, found " + Twine(Quote) +
                           Text + Twine(Quote) +
                           didYouMean(Text, {"error", "warn"}));
}

StringRef spell(ConflictRule R) {
  return R == ConflictRule::Warn ? "warn" : "error";
}

Expected<FramePlan> parseFramePlan(StringRef Text, char Quote) {
  if (Text == "runtime")
    return FramePlan::Runtime;
  if (Text == "static")
    return FramePlan::Static;
  return createStringError("must be runtime or static, found " + Twine(Quote) +
                           Text + Twine(Quote) +
                           didYouMean(Text, {"runtime", "static"}));
}

StringRef spell(FramePlan P) {
  return P == FramePlan::Static ? "static" : "runtime";
}

Expected<uint64_t> parseByteCount(StringRef Text) {
  uint64_t V;
  switch (readByteCount(Text, V)) {
  case ByteCountRead::OK:
    return V;
  case ByteCountRead::Negative:
    return createStringError("must not be negative, found \"" + Text + "\"");
  case ByteCountRead::NotANumber:
    return createStringError("must be a byte count, found \"" + Text + "\"");
  case ByteCountRead::TooLarge:
    return createStringError("must be a byte count, found \"" + Text +
                             "\", more than the largest, 18446744073709551615");
  }
  llvm_unreachable("all ByteCountRead values handled");
}

std::string didYouMean(StringRef Got, ArrayRef<StringRef> Choices) {
  // A typo changes a few characters (a third of the word is a lot already),
  // or the word was cut short or lengthened ("warning" for "warn").
  // Of two as near, the one with fewer edits ('alloc-slot', not the prefix
  // 'alloc', for "alloc_slot").
  const unsigned TooFar = std::max<unsigned>(2, Got.size() / 3) + 1;
  unsigned Best = TooFar;
  unsigned BestEdits = ~0u;
  StringRef Nearest;
  if (Got.empty())
    return "";
  for (StringRef C : Choices) {
    if (C == Got || C.empty())
      continue;
    unsigned Edits = Got.edit_distance(C, /*AllowReplacements=*/true);
    unsigned D = Got.starts_with(C) || C.starts_with(Got) ? 1 : Edits;
    if (D < Best || (D == Best && D < TooFar && Edits < BestEdits)) {
      Best = D;
      BestEdits = Edits;
      Nearest = C;
    }
  }
  return Nearest.empty() ? "" : (" (did you mean '" + Nearest + "'?)").str();
}

} // namespace scopealloc
