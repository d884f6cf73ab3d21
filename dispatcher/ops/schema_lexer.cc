#include "dispatcher/ops/schema_lexer.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sy::core::schema_internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c); }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
      if (pos_ == text_.size()) break;
      tokens.push_back(Next());
      // After a bad token the rest cannot be trusted, and the parser stops
      // at it anyway.
      if (tokens.back().kind == TokenKind::kBad) break;
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.column = static_cast<int>(pos_) + 1;
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  Token Make(TokenKind kind, size_t start) const {
    Token t;
    t.kind = kind;
    t.text = text_.substr(start, pos_ - start);
    t.column = static_cast<int>(start) + 1;
    return t;
  }

  bool At(std::string_view s) const {
    return text_.substr(pos_, s.size()) == s;
  }

  Token Next() {
    const size_t start = pos_;
    const char c = text_[pos_];
    if (IsIdentStart(c)) {
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      return Make(TokenKind::kIdent, start);
    }
    if (IsDigit(c) ||
        (c == '-' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      return Number(start);
    }
    if (c == '"' || c == '\'') return String(start);
    if (At("->") || At("::")) {
      pos_ += 2;
      return Make(TokenKind::kPunct, start);
    }
    if (std::string_view("()[],=?.").find(c) != std::string_view::npos) {
      ++pos_;
      return Make(TokenKind::kPunct, start);
    }
    // Take a whole UTF-8 sequence so the message quotes a character, not
    // a fragment of one.
    ++pos_;
    while (pos_ < text_.size() && (text_[pos_] & 0xC0) == 0x80) ++pos_;
    return Make(TokenKind::kBad, start);
  }

  Token Number(size_t start) {
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
    };
    digits();
    bool is_float = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t p = pos_ + 1;
      if (p < text_.size() && (text_[p] == '+' || text_[p] == '-')) ++p;
      if (p < text_.size() && IsDigit(text_[p])) {
        is_float = true;
        pos_ = p;
        digits();
      }
    }
    if (pos_ < text_.size() &&
        (IsIdentChar(text_[pos_]) || text_[pos_] == '.')) {
      // "12abc", "1e", "1.2.3": quote all of it rather than a prefix.
      while (pos_ < text_.size() &&
             (IsIdentChar(text_[pos_]) || text_[pos_] == '.')) {
        ++pos_;
      }
      Token bad = Make(TokenKind::kBad, start);
      bad.note = "not a number";
      return bad;
    }
    return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start);
  }

  // A backslash takes the next character literally; nothing else is an
  // escape, so any string survives a print-and-parse round trip.
  Token String(size_t start) {
    const char quote = text_[pos_++];
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value += text_[pos_++];
    }
    if (pos_ == text_.size()) {
      Token bad = Make(TokenKind::kBad, start);
      bad.note = "a string with no closing quote";
      return bad;
    }
    ++pos_;  // the closing quote
    Token t = Make(TokenKind::kString, start);
    t.value = std::move(value);
    return t;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view text) { return Lexer(text).Run(); }

}  // namespace sy::core::schema_internal
