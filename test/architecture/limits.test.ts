/**
 * Small units (issue 22), checked: no file in src/modules over 450 lines, no class with more than
 * 15 public methods, no function over 60 lines unless the comment before it says why (a line
 * starting `Long:`), classes and functions anywhere in src. The third release ended with 4 files,
 * 8 classes and 37 functions over these limits, listed here as debt; all were split by idea, and
 * the list is gone: a unit that outgrows a limit is split before it lands.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const SRC = resolve(import.meta.dir, '../../src');
const MAX_FILE_LINES = 450;
const MAX_PUBLIC_METHODS = 15;
const MAX_FUNCTION_LINES = 60;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

interface Unit {
  key: string;
  size: number;
}

function lineSpan(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getEnd()).line - source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

function isPublic(member: ts.ClassElement): boolean {
  if (!(ts.isMethodDeclaration(member) || ts.isGetAccessorDeclaration(member))) return false;
  if (member.name && ts.isPrivateIdentifier(member.name)) return false;
  return (ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0;
}

/** The name a function goes by: its own, its variable's, its property's or its method's. */
function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText();
  return `<anonymous@${node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1}>`;
}

/** Whether the comment just before the function (or the statement holding it) starts a line with `Long:`. */
function saysWhyLong(source: ts.SourceFile, node: ts.Node): boolean {
  let holder: ts.Node = node;
  while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isClassDeclaration(holder.parent) && !ts.isBlock(holder.parent)) holder = holder.parent;
  const comments = ts.getLeadingCommentRanges(source.text, holder.getFullStart()) ?? [];
  return comments.some((c) => /^\s*(\/\/|\/?\*+)?\s*Long:/m.test(source.text.slice(c.pos, c.end)));
}

function measure(): { files: Unit[]; classes: Unit[]; functions: Unit[] } {
  const files: Unit[] = [];
  const classes: Unit[] = [];
  const functions: Unit[] = [];
  for (const path of filesUnder(SRC)) {
    const file = relative(SRC, path);
    const text = readFileSync(path, 'utf8');
    if (file.startsWith('modules/')) files.push({ key: file, size: text.split('\n').length });
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) classes.push({ key: node.name.text, size: node.members.filter(isPublic).length });
      const isFunction = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node);
      if (isFunction && node.body && lineSpan(source, node) > MAX_FUNCTION_LINES && !saysWhyLong(source, node)) {
        functions.push({ key: `${file}:${functionName(node)}`, size: lineSpan(source, node) });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { files, classes, functions };
}

/** Units over `limit`, with their size. */
function breaches(units: Unit[], limit: number): string[] {
  return units.filter((u) => u.size > limit).map((u) => `${u.key}: ${u.size}`);
}

describe('small units', () => {
  const measured = measure();

  test(`no file in src/modules over ${MAX_FILE_LINES} lines`, () => {
    expect(breaches(measured.files, MAX_FILE_LINES)).toEqual([]);
  });

  test(`no class with more than ${MAX_PUBLIC_METHODS} public methods`, () => {
    expect(breaches(measured.classes, MAX_PUBLIC_METHODS)).toEqual([]);
  });

  test(`no function over ${MAX_FUNCTION_LINES} lines unless a \`Long:\` comment says why`, () => {
    expect(breaches(measured.functions, MAX_FUNCTION_LINES)).toEqual([]);
  });
});
