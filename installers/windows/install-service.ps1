# Installs Burrow to start with Windows, in the background, under the LocalService account.
#   powershell -ExecutionPolicy Bypass -File install-service.ps1 [-Binary .\burrow-win-x64.exe] [-Port 3000] [-VolumeRoot D:\Burrow]
# Burrow is a console program, not a Service Control Manager service, so it is registered as
# a boot-time scheduled task (restarted on failure) with explicit folders; no third-party
# service wrapper is needed. Run it again to upgrade: data and settings stay.
#Requires -RunAsAdministrator
param(
  [string]$Binary = (Join-Path $PSScriptRoot 'burrow-win-x64.exe'),
  [int]$Port = 3000,
  [string]$VolumeRoot = (Join-Path $env:ProgramData 'Burrow\Volumes'),
  [string]$ConfigDir = (Join-Path $env:ProgramData 'Burrow\Config'),
  [string]$CacheDir = (Join-Path $env:ProgramData 'Burrow\Cache'),
  [string]$InstallDir = (Join-Path $env:ProgramFiles 'Burrow')
)
$ErrorActionPreference = 'Stop'
$TaskName = 'Burrow'

if (-not (Test-Path $Binary)) { throw "Burrow executable not found: $Binary" }
$sums = Join-Path (Split-Path $Binary) 'SHA256SUMS'
if (Test-Path $sums) {
  $name = Split-Path $Binary -Leaf
  $line = Get-Content $sums | Where-Object { $_ -match "\s$([regex]::Escape($name))$" }
  $hash = (Get-FileHash -Algorithm SHA256 $Binary).Hash.ToLower()
  if ($line -and -not $line.StartsWith($hash)) { throw "Checksum mismatch for $Binary" }
}

# Stop a running copy before replacing it.
if (Get-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue) {
  Stop-ScheduledTask -TaskName $TaskName -ErrorAction SilentlyContinue
  Unregister-ScheduledTask -TaskName $TaskName -Confirm:$false
}

foreach ($dir in @($InstallDir, $ConfigDir, $CacheDir)) { New-Item -ItemType Directory -Force -Path $dir | Out-Null }
if (-not (Test-Path $VolumeRoot)) { New-Item -ItemType Directory -Force -Path (Join-Path $VolumeRoot 'Files') | Out-Null }
# LocalService may write its own folders (and the volumes you give it), nothing else.
foreach ($dir in @($ConfigDir, $CacheDir, $VolumeRoot)) {
  icacls $dir /grant '*S-1-5-19:(OI)(CI)M' /T /Q | Out-Null
}

$exe = Join-Path $InstallDir 'burrow.exe'
Copy-Item -Force $Binary "$exe.new"
Move-Item -Force "$exe.new" $exe

# The task runs a small launcher that sets the folders explicitly.
$launcher = Join-Path $InstallDir 'burrow-service.cmd'
@"
@echo off
set CONFIG_DIR=$ConfigDir
set CACHE_DIR=$CacheDir
set VOLUME_ROOT=$VolumeRoot
set PORT=$Port
if exist "$ConfigDir\burrow.env.cmd" call "$ConfigDir\burrow.env.cmd"
"$exe" >> "$CacheDir\burrow.log" 2>&1
"@ | Set-Content -Encoding ASCII $launcher

$action = New-ScheduledTaskAction -Execute 'cmd.exe' -Argument "/c `"$launcher`"" -WorkingDirectory $ConfigDir
$trigger = New-ScheduledTaskTrigger -AtStartup
$principal = New-ScheduledTaskPrincipal -UserId 'NT AUTHORITY\LOCALSERVICE' -LogonType ServiceAccount
$settings = New-ScheduledTaskSettingsSet -RestartCount 999 -RestartInterval (New-TimeSpan -Minutes 1) -ExecutionTimeLimit ([TimeSpan]::Zero) -AllowStartIfOnBatteries -DontStopIfGoingOnBatteries
Register-ScheduledTask -TaskName $TaskName -Action $action -Trigger $trigger -Principal $principal -Settings $settings -Description 'Burrow web file manager' | Out-Null
Start-ScheduledTask -TaskName $TaskName

New-NetFirewallRule -DisplayName 'Burrow' -Direction Inbound -Protocol TCP -LocalPort $Port -Action Allow -ErrorAction SilentlyContinue | Out-Null
Write-Host "Burrow is installed: http://localhost:$Port/  (log: $CacheDir\burrow.log; settings: $ConfigDir\burrow.env.cmd with 'set NAME=value' lines)"
